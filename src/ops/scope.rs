//! The one place that works around the API's scoped-token bug: search endpoints return
//! items of every project of the organisation, even for a token limited to one project
//! (direct GETs correctly answer 403). Every call site carries the marker comment so the
//! workaround can be found and removed once the API is fixed. Knows nothing of MCP.

use crate::platform::HasProjectId;

/// Keeps only the items of `project_id`.
pub fn only_project<T: HasProjectId>(items: Vec<T>, project_id: &str) -> Vec<T> {
    items
        .into_iter()
        .filter(|item| item.project_id() == project_id)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::ServiceStack;

    #[test]
    fn drops_other_projects_items() {
        let items = vec![
            ServiceStack {
                id: "a".into(),
                project_id: "p1".into(),
                ..Default::default()
            },
            ServiceStack {
                id: "b".into(),
                project_id: "p2".into(),
                ..Default::default()
            },
        ];
        let kept = only_project(items, "p1");
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].id, "a");
    }
}
