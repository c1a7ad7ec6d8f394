//! One knowledge document: its front matter (`title`, `description`, `keywords`), the
//! markdown body, the `## See Also` links, the fenced code blocks, and the plain text the
//! index and the snippets read (markdown syntax removed with a real CommonMark parser).

use std::fmt;

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use serde::Serialize;

/// The URI prefix of every document.
pub const URI_PREFIX: &str = "zerops://docs/";

/// A parsed document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Document {
    /// `zerops://docs/services/postgresql`.
    pub uri: String,
    /// `services/postgresql`.
    pub path: String,
    pub title: String,
    pub description: String,
    pub keywords: Vec<String>,
    /// The whole file as written, front matter included.
    pub markdown: String,
    /// The documents listed under `## See Also`, in order.
    pub see_also: Vec<String>,
}

/// A fenced code block of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeBlock {
    /// The info string after the fence (`yaml zerops.yml`).
    pub info: String,
    pub code: String,
    /// 1-based line of the opening fence in the whole file.
    pub line: usize,
}

/// Why a file is not a usable document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DocumentError {
    /// The file does not open with a `---` line.
    NoFrontMatter { path: String },
    /// The front matter has no closing `---` line.
    UnclosedFrontMatter { path: String },
    /// A required front-matter key is missing or empty.
    MissingField { path: String, field: &'static str },
}

impl fmt::Display for DocumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DocumentError::NoFrontMatter { path } => {
                write!(f, "{path}: no front matter (the file must start with ---)")
            }
            DocumentError::UnclosedFrontMatter { path } => {
                write!(f, "{path}: the front matter is not closed with ---")
            }
            DocumentError::MissingField { path, field } => {
                write!(f, "{path}: front matter has no {field}")
            }
        }
    }
}

impl std::error::Error for DocumentError {}

/// What one pass of the markdown parser extracts for indexing.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Extract {
    /// The body as plain text: no title heading, no See Also section, one block per line.
    pub text: String,
    /// `zerops://docs/...` URIs listed under `## See Also`.
    pub see_also: Vec<String>,
    /// The text of the first level-1 heading.
    pub heading: Option<String>,
}

impl Document {
    /// Parses `markdown` found at `path` (`services/postgresql`, no extension).
    pub fn parse(path: &str, markdown: &str) -> Result<Document, DocumentError> {
        let see_also = extract(body_of(markdown)).see_also;
        Document::parse_extracted(path, markdown.to_owned(), see_also)
    }

    /// [`Document::parse`] with the See Also list already extracted (the embedded documents
    /// are extracted by build.rs, so the binary carries no markdown parser). Takes the
    /// markdown by value: the document keeps it, and the store builds no second copy.
    pub fn parse_extracted(
        path: &str,
        markdown: String,
        see_also: Vec<String>,
    ) -> Result<Document, DocumentError> {
        let (front, _) = split_front_matter(path, &markdown)?;
        let mut title = String::new();
        let mut description = String::new();
        let mut keywords = Vec::new();
        let mut lines = front.lines().peekable();
        while let Some(line) = lines.next() {
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let value = value.trim();
            match key.trim() {
                "title" => title = unquote(value),
                "description" => description = unquote(value),
                "keywords" if value.is_empty() => {
                    // Block list: the following `- item` lines.
                    while let Some(item) = lines.peek().and_then(|l| l.trim().strip_prefix('-')) {
                        keywords.push(unquote(item.trim()).to_lowercase());
                        lines.next();
                    }
                }
                "keywords" => keywords = flow_list(value),
                _ => {}
            }
        }
        keywords.retain(|k| !k.is_empty());
        if title.is_empty() {
            return Err(DocumentError::MissingField {
                path: path.to_owned(),
                field: "title",
            });
        }
        Ok(Document {
            uri: format!("{URI_PREFIX}{path}"),
            path: path.to_owned(),
            title,
            description,
            keywords,
            markdown,
            see_also,
        })
    }

    /// The markdown after the front matter.
    pub fn body(&self) -> &str {
        body_of(&self.markdown)
    }

    /// The text of the first level-1 heading, as written (`# Title` → `Title`).
    pub fn heading(&self) -> Option<&str> {
        let body = self.body();
        Parser::new_ext(body, options())
            .into_offset_iter()
            .find_map(|(event, range)| match event {
                Event::Start(Tag::Heading {
                    level: HeadingLevel::H1,
                    ..
                }) => Some(body[range].trim().trim_matches('#').trim()),
                _ => None,
            })
    }

    /// Every `zerops://docs/...` URI written anywhere in the body (a sentence's full stop
    /// after it is not part of it).
    pub fn links(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut rest = self.body();
        while let Some(at) = rest.find(URI_PREFIX) {
            let tail = &rest[at..];
            let end = tail[URI_PREFIX.len()..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '/' | '-' | '_' | '.')))
                .map_or(tail.len(), |e| e + URI_PREFIX.len());
            // A bare prefix (the template `zerops://docs/{+path}`) names no document.
            let uri = tail[..end].trim_end_matches(['.', '/']);
            if uri.len() > URI_PREFIX.len() {
                out.push(uri.to_owned());
            }
            rest = &tail[end..];
        }
        out
    }

    /// The fenced code blocks of the body, with their info strings.
    pub fn code_blocks(&self) -> Vec<CodeBlock> {
        let body = self.body();
        let body_line = self.markdown[..self.markdown.len() - body.len()]
            .matches('\n')
            .count();
        let mut blocks = Vec::new();
        let mut open: Option<CodeBlock> = None;
        for (event, range) in Parser::new_ext(body, options()).into_offset_iter() {
            match event {
                Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                    open = Some(CodeBlock {
                        info: info.trim().to_owned(),
                        code: String::new(),
                        line: body_line + body[..range.start].matches('\n').count() + 1,
                    });
                }
                Event::Text(text) => {
                    if let Some(block) = open.as_mut() {
                        block.code.push_str(&text);
                    }
                }
                Event::End(TagEnd::CodeBlock) => blocks.extend(open.take()),
                _ => {}
            }
        }
        blocks
    }
}

fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH
}

/// Splits a file into its front matter and body.
fn split_front_matter<'a>(
    path: &str,
    markdown: &'a str,
) -> Result<(&'a str, &'a str), DocumentError> {
    let text = markdown.strip_prefix('\u{feff}').unwrap_or(markdown);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or_else(|| DocumentError::NoFrontMatter {
            path: path.to_owned(),
        })?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Ok((&rest[..offset], &rest[offset + line.len()..]));
        }
        offset += line.len();
    }
    Err(DocumentError::UnclosedFrontMatter {
        path: path.to_owned(),
    })
}

/// The body of a file, or the whole file when it has no (closed) front matter.
pub fn body_of(markdown: &str) -> &str {
    split_front_matter("", markdown).map_or(markdown, |(_, body)| body)
}

/// Removes one level of YAML quoting from a scalar.
fn unquote(value: &str) -> String {
    let v = value.trim();
    if v.len() >= 2 && v.starts_with('"') && v.ends_with('"') {
        let inner = &v[1..v.len() - 1];
        let mut out = String::with_capacity(inner.len());
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                out.extend(chars.next());
            } else {
                out.push(c);
            }
        }
        out
    } else if v.len() >= 2 && v.starts_with('\'') && v.ends_with('\'') {
        v[1..v.len() - 1].replace("''", "'")
    } else {
        v.to_owned()
    }
}

/// Parses `[a, "b, c", d]` into lower-case items.
fn flow_list(value: &str) -> Vec<String> {
    let inner = value.trim().trim_start_matches('[').trim_end_matches(']');
    let mut items = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    for c in inner.chars() {
        match (c, quote) {
            ('"' | '\'', None) => {
                quote = Some(c);
                current.push(c);
            }
            (q, Some(open)) if q == open => {
                quote = None;
                current.push(c);
            }
            (',', None) => items.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    items.push(current);
    items
        .iter()
        .map(|i| unquote(i).to_lowercase())
        .filter(|i| !i.is_empty())
        .collect()
}

/// Turns a markdown body into plain text in one parser pass, setting aside the title
/// heading (indexed as its own field) and the See Also list (metadata, not content).
pub fn extract(body: &str) -> Extract {
    let mut out = Extract::default();
    let mut heading: Option<(HeadingLevel, String)> = None;
    let mut in_see_also = false;
    for event in Parser::new_ext(body, options()) {
        match event {
            Event::Start(Tag::Heading { level, .. }) => heading = Some((level, String::new())),
            Event::End(TagEnd::Heading(_)) => {
                let Some((level, text)) = heading.take() else {
                    continue;
                };
                let text = text.trim().to_owned();
                if level == HeadingLevel::H1 && out.heading.is_none() {
                    out.heading = Some(text);
                    continue;
                }
                if level <= HeadingLevel::H2 {
                    in_see_also = text.eq_ignore_ascii_case("see also");
                }
                if !in_see_also {
                    out.text.push_str(&text);
                    out.text.push('\n');
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, h)) = heading.as_mut() {
                    h.push_str(&t);
                } else if in_see_also {
                    collect_uris(&t, &mut out.see_also);
                } else {
                    out.text.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak if !in_see_also => push_space(&mut out.text),
            Event::End(TagEnd::TableHead | TagEnd::TableRow) if !in_see_also => {
                end_row(&mut out.text);
            }
            Event::End(
                TagEnd::Paragraph | TagEnd::Item | TagEnd::CodeBlock | TagEnd::BlockQuote(_),
            ) if !in_see_also => push_newline(&mut out.text),
            // Cells stay apart in snippets ("Symptom | Cause | Fix"), not run together. Only
            // spaces are trimmed: an empty first cell must not pull its row onto the line
            // before.
            Event::End(TagEnd::TableCell) if !in_see_also => {
                let kept = out.text.trim_end_matches(' ').len();
                out.text.truncate(kept);
                out.text.push_str(" | ");
            }
            _ => {}
        }
    }
    out
}

/// Ends a table row: the separator after its last cell goes.
fn end_row(text: &mut String) {
    if let Some(row) = text.strip_suffix(" | ") {
        let kept = row.len();
        text.truncate(kept);
    }
    push_newline(text);
}

fn push_newline(text: &mut String) {
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
}

fn push_space(text: &mut String) {
    if !text.is_empty() && !text.ends_with(char::is_whitespace) {
        text.push(' ');
    }
}

fn collect_uris(text: &str, out: &mut Vec<String>) {
    for word in text.split_whitespace() {
        if let Some(at) = word.find(URI_PREFIX) {
            let uri = word[at..].trim_end_matches(|c: char| !(c.is_ascii_alphanumeric()));
            if uri.len() > URI_PREFIX.len() && !out.iter().any(|u| u == uri) {
                out.push(uri.to_owned());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "---\ntitle: PostgreSQL on Zerops\ndescription: \"Ports: and \\\"variables\\\"\"\nkeywords: [postgresql, Postgres, \"pg, sql\"]\n---\n\n# PostgreSQL on Zerops\n\nText with **bold** and `code` and zerops://docs/guides/connect-database.\n\n| Port | Use |\n|---|---|\n| 5432 | primary |\n\n```yaml import.yml\nservices:\n  - hostname: db\n```\n\n## See Also\n- zerops://docs/decisions/choose-database\n- zerops://docs/services/mariadb (MySQL)\n";

    #[test]
    fn parses_front_matter() {
        let doc = Document::parse("services/postgresql", SAMPLE).unwrap();
        assert_eq!(doc.uri, "zerops://docs/services/postgresql");
        assert_eq!(doc.path, "services/postgresql");
        assert_eq!(doc.title, "PostgreSQL on Zerops");
        assert_eq!(doc.description, "Ports: and \"variables\"");
        assert_eq!(doc.keywords, ["postgresql", "postgres", "pg, sql"]);
        assert_eq!(doc.markdown, SAMPLE);
        assert_eq!(doc.heading(), Some("PostgreSQL on Zerops"));
    }

    #[test]
    fn block_keyword_lists_and_crlf() {
        let md = "---\r\ntitle: 'It''s'\r\nkeywords:\r\n  - One\r\n  - two\r\n---\r\n# It's\r\n";
        let doc = Document::parse("a/b", md).unwrap();
        assert_eq!(doc.title, "It's");
        assert_eq!(doc.keywords, ["one", "two"]);
        assert_eq!(doc.body(), "# It's\r\n");
    }

    #[test]
    fn see_also_links_and_code_blocks() {
        let doc = Document::parse("services/postgresql", SAMPLE).unwrap();
        assert_eq!(
            doc.see_also,
            [
                "zerops://docs/decisions/choose-database",
                "zerops://docs/services/mariadb"
            ]
        );
        assert_eq!(
            doc.links(),
            [
                "zerops://docs/guides/connect-database",
                "zerops://docs/decisions/choose-database",
                "zerops://docs/services/mariadb"
            ]
        );
        let blocks = doc.code_blocks();
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].info, "yaml import.yml");
        assert_eq!(blocks[0].code, "services:\n  - hostname: db\n");
        assert_eq!(blocks[0].line, 15);
        assert_eq!(SAMPLE.lines().nth(14), Some("```yaml import.yml"));
    }

    #[test]
    fn links_skip_the_template_and_punctuation() {
        let md = "---\ntitle: T\n---\n# T\nRead zerops://docs/{+path} or zerops://docs/a/b. Or (zerops://docs/c/d).\n";
        let doc = Document::parse("x/y", md).unwrap();
        assert_eq!(doc.links(), ["zerops://docs/a/b", "zerops://docs/c/d"]);
    }

    #[test]
    fn plain_text_drops_markup_title_and_see_also() {
        let doc = Document::parse("services/postgresql", SAMPLE).unwrap();
        let text = extract(doc.body()).text;
        assert!(
            text.starts_with("Text with bold and code and zerops://docs/guides/connect-database.")
        );
        // Cells are kept apart, and a row ends without a separator.
        assert!(text.contains("Port | Use\n"), "{text}");
        assert!(text.contains("5432 | primary\n"), "{text}");
        // An empty first cell keeps its place, and the row stays on a line of its own.
        let table = extract("Para one.\n\n| | A | B |\n|---|---|---|\n| x | 1 | 2 |\n").text;
        assert_eq!(table, "Para one.\n | A | B\nx | 1 | 2\n");
        assert!(text.contains("services:\n  - hostname: db"), "{text}");
        assert!(
            !text.contains("PostgreSQL on Zerops"),
            "title stays out: {text}"
        );
        assert!(
            !text.contains("choose-database"),
            "See Also stays out: {text}"
        );
        assert!(!text.contains(['*', '`']), "{text}");
        assert!(!text.contains("---"), "no table rule: {text}");
    }

    #[test]
    fn sections_after_see_also_are_content_again() {
        let text = extract("# T\n\n## See Also\n- zerops://docs/a/b\n\n## Later\nmore\n").text;
        assert_eq!(text, "Later\nmore\n");
    }

    #[test]
    fn rejects_broken_front_matter() {
        assert_eq!(
            Document::parse("x/y", "# Title\n"),
            Err(DocumentError::NoFrontMatter { path: "x/y".into() })
        );
        assert_eq!(
            Document::parse("x/y", "---\ntitle: a\n"),
            Err(DocumentError::UnclosedFrontMatter { path: "x/y".into() })
        );
        let err = Document::parse("x/y", "---\ndescription: d\n---\n# T\n").unwrap_err();
        assert_eq!(err.to_string(), "x/y: front matter has no title");
    }
}
