//! Reading a newest-first search (processes, app versions) page by page until the caller
//! has enough. The searches return every project's items (the scoped-token bug), so ours
//! may be sparse; and a server may cap its pages below what was asked, so a short page is
//! not the end unless the search says so ([`SearchPage::more`]). Knows nothing of MCP.

use std::collections::HashSet;

use crate::platform::{HasProjectId, PlatformError, SearchPage};

use super::scope;

/// The most items read from one search: beyond this the rest is left unread.
pub const MAX_READ: usize = 1000;

/// The items of one project read so far, newest first, and where the next page starts.
pub struct Pager<T> {
    project_id: String,
    /// This project's items, each once, in the order the search gave them.
    pub items: Vec<T>,
    seen: HashSet<String>,
    /// Items received so far (every project's): the next page's offset.
    offset: usize,
    page: usize,
    /// Pages in a row that brought nothing new.
    stale: u8,
    ended: bool,
}

impl<T: HasProjectId> Pager<T> {
    /// Starts with pages of `first_page` items; later pages are four times as large.
    pub fn new(project_id: &str, first_page: usize) -> Pager<T> {
        Pager {
            project_id: project_id.to_owned(),
            items: Vec::new(),
            seen: HashSet::new(),
            offset: 0,
            page: first_page.clamp(1, MAX_READ),
            stale: 0,
            ended: false,
        }
    }

    /// True once the search has nothing more, or [`MAX_READ`] items were read.
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// Reads the next page with `fetch(limit, offset)`; `id_of` tells items apart, so one
    /// seen again (the listing shifted between pages) is kept once.
    pub fn read_next(
        &mut self,
        fetch: impl FnOnce(usize, usize) -> Result<SearchPage<T>, PlatformError>,
        id_of: impl Fn(&T) -> &str,
    ) -> Result<(), PlatformError> {
        if self.ended {
            return Ok(());
        }
        let limit = self.page.min(MAX_READ - self.offset);
        let page = fetch(limit, self.offset)?;
        // The next page starts after what came, not after what was asked for.
        self.offset += page.items.len();
        let mut fresh = 0;
        let mut new_items = Vec::new();
        for item in page.items {
            if self.seen.insert(id_of(&item).to_owned()) {
                fresh += 1;
                new_items.push(item);
            }
        }
        // API-BUG-WORKAROUND: remove when search endpoints are project-scoped
        self.items
            .extend(scope::only_project(new_items, &self.project_id));
        // Nothing new on two pages in a row: an API that ignores `offset` would repeat its
        // first page forever (one such page can also be items pushed down by new ones).
        self.stale = if fresh == 0 { self.stale + 1 } else { 0 };
        self.ended = !page.more || self.stale >= 2 || self.offset >= MAX_READ;
        self.page = (self.page * 4).min(MAX_READ);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::AppVersionEvent;

    fn version(id: &str, project: &str) -> AppVersionEvent {
        AppVersionEvent {
            id: id.into(),
            project_id: project.into(),
            ..Default::default()
        }
    }

    /// A server that answers at most `cap` items a page and says how many there are.
    fn capped(
        all: &[AppVersionEvent],
        cap: usize,
        limit: usize,
        offset: usize,
    ) -> SearchPage<AppVersionEvent> {
        let items: Vec<_> = all
            .iter()
            .skip(offset)
            .take(limit.min(cap))
            .cloned()
            .collect();
        SearchPage {
            more: offset + items.len() < all.len(),
            items,
        }
    }

    #[test]
    fn a_capped_page_is_not_the_end_and_other_projects_are_dropped() {
        let all: Vec<_> = (0..30)
            .map(|i| version(&format!("v{i}"), if i % 3 == 0 { "mine" } else { "other" }))
            .collect();
        let mut pager = Pager::new("mine", 20);
        let mut asked = Vec::new();
        while !pager.ended() {
            pager
                .read_next(
                    |limit, offset| {
                        asked.push((limit, offset));
                        Ok(capped(&all, 7, limit, offset))
                    },
                    |v| &v.id,
                )
                .unwrap();
        }
        // Offsets follow what came (7 a page), not what was asked (20, 80, ...).
        assert_eq!(
            asked.iter().map(|a| a.1).collect::<Vec<_>>(),
            [0, 7, 14, 21, 28]
        );
        assert_eq!(asked[1].0, 80);
        let ids: Vec<_> = pager.items.iter().map(|v| v.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "v0", "v3", "v6", "v9", "v12", "v15", "v18", "v21", "v24", "v27"
            ]
        );
    }

    #[test]
    fn a_repeated_page_ends_the_reading() {
        let all: Vec<_> = (0..5).map(|i| version(&format!("v{i}"), "mine")).collect();
        let mut pager = Pager::new("mine", 2);
        let mut pages = 0;
        while !pager.ended() {
            pager
                .read_next(
                    |limit, _offset| {
                        pages += 1;
                        // Ignores the offset: always the newest items.
                        Ok(SearchPage {
                            items: all.iter().take(limit).cloned().collect(),
                            more: true,
                        })
                    },
                    |v| &v.id,
                )
                .unwrap();
        }
        // The second page (8 asked, 3 new) moves on; the third and fourth bring nothing new.
        assert_eq!(pages, 4);
        assert_eq!(pager.items.len(), 5);
    }

    #[test]
    fn reading_stops_at_the_limit() {
        let all: Vec<_> = (0..3000).map(|i| version(&format!("v{i}"), "x")).collect();
        let mut pager = Pager::new("mine", 100);
        let mut read = 0;
        while !pager.ended() {
            pager
                .read_next(
                    |limit, offset| {
                        let page = capped(&all, usize::MAX, limit, offset);
                        read += page.items.len();
                        Ok(page)
                    },
                    |v| &v.id,
                )
                .unwrap();
        }
        assert_eq!(read, MAX_READ);
        assert!(pager.items.is_empty());
    }
}
