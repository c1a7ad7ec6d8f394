//! The embedded Zerops knowledge base and its BM25 search.
