//! One knowledge document: front matter (`title`, `description`, `keywords`), the
//! markdown body, its `## See Also` links, and its fenced code blocks.

use serde::Serialize;

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
    /// The whole file as written.
    pub markdown: String,
    /// Linked documents from `## See Also`.
    pub see_also: Vec<String>,
}

/// A fenced code block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeBlock {
    /// The info string after the fence (e.g. `yaml zerops.yml`).
    pub info: String,
    pub code: String,
    /// 1-based line of the opening fence.
    pub line: usize,
}

/// Why a file is not a usable document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentError(pub String);

/// The URI prefix of every document.
pub const URI_PREFIX: &str = "zerops://docs/";

fn unquote(value: &str) -> String {
    let v = value.trim();
    if v.len() >= 2
        && ((v.starts_with('"') && v.ends_with('"')) || (v.starts_with('\'') && v.ends_with('\'')))
    {
        v[1..v.len() - 1].to_owned()
    } else {
        v.to_owned()
    }
}

impl Document {
    /// Parses `markdown` found at `path` (`services/postgresql`, no extension).
    pub fn parse(path: &str, markdown: &str) -> Result<Document, DocumentError> {
        let text = markdown.strip_prefix('\u{feff}').unwrap_or(markdown);
        let rest = text
            .strip_prefix("---\n")
            .or_else(|| text.strip_prefix("---\r\n"))
            .ok_or_else(|| {
                DocumentError(format!(
                    "{path}: no front matter (the file must start with ---)"
                ))
            })?;
        let end = rest
            .find("\n---")
            .ok_or_else(|| DocumentError(format!("{path}: front matter is not closed with ---")))?;
        let (mut title, mut description, mut keywords) = (String::new(), String::new(), Vec::new());
        for line in rest[..end].lines() {
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            match key.trim() {
                "title" => title = unquote(value),
                "description" => description = unquote(value),
                "keywords" => {
                    let list = value.trim().trim_start_matches('[').trim_end_matches(']');
                    keywords = list
                        .split(',')
                        .map(unquote)
                        .filter(|k| !k.is_empty())
                        .map(|k| k.to_lowercase())
                        .collect();
                }
                _ => {}
            }
        }
        let body = &rest[end + 4..];
        Ok(Document {
            uri: format!("{URI_PREFIX}{path}"),
            path: path.to_owned(),
            title,
            description,
            keywords,
            see_also: see_also(body),
            markdown: markdown.to_owned(),
        })
    }

    /// The body after the front matter.
    pub fn body(&self) -> &str {
        let text = self.markdown.strip_prefix("---").unwrap_or(&self.markdown);
        match text.find("\n---") {
            Some(end) => text[end + 4..].trim_start_matches(['\r', '\n']),
            None => &self.markdown,
        }
    }

    /// The first `# ` heading of the body.
    pub fn heading(&self) -> Option<&str> {
        self.body()
            .lines()
            .find_map(|l| l.strip_prefix("# "))
            .map(str::trim)
    }

    /// Every `zerops://docs/...` URI mentioned anywhere in the body.
    pub fn links(&self) -> Vec<String> {
        let body = self.body();
        let mut out = Vec::new();
        let mut rest = body;
        while let Some(at) = rest.find(URI_PREFIX) {
            let tail = &rest[at..];
            let end = tail
                .find(|c: char| {
                    !(c.is_ascii_alphanumeric() || matches!(c, ':' | '/' | '-' | '_' | '.'))
                })
                .unwrap_or(tail.len());
            out.push(tail[..end].trim_end_matches('.').to_owned());
            rest = &tail[end..];
        }
        out
    }

    /// Fenced code blocks of the body, with their info strings.
    pub fn code_blocks(&self) -> Vec<CodeBlock> {
        let mut blocks = Vec::new();
        let mut open: Option<(String, usize, Vec<&str>)> = None;
        let offset = self.markdown.lines().count() - self.body().lines().count();
        for (i, line) in self.body().lines().enumerate() {
            let trimmed = line.trim_start();
            match &mut open {
                None => {
                    if let Some(info) = trimmed.strip_prefix("```") {
                        open = Some((info.trim().to_owned(), i + 1 + offset, Vec::new()));
                    }
                }
                Some((info, start, lines)) => {
                    if trimmed.starts_with("```") {
                        blocks.push(CodeBlock {
                            info: info.clone(),
                            code: lines.join("\n") + "\n",
                            line: *start,
                        });
                        open = None;
                    } else {
                        lines.push(line);
                    }
                }
            }
        }
        blocks
    }
}

/// The `- zerops://docs/...` items under a `## See Also` heading.
fn see_also(body: &str) -> Vec<String> {
    let mut inside = false;
    let mut out = Vec::new();
    for line in body.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            inside = heading.trim().eq_ignore_ascii_case("see also");
            continue;
        }
        if inside && let Some(item) = line.trim().strip_prefix("- ") {
            let item = item.trim();
            if let Some(start) = item.find(URI_PREFIX) {
                let uri: String = item[start..]
                    .chars()
                    .take_while(|c| !c.is_whitespace() && *c != ')')
                    .collect();
                out.push(uri);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "---\ntitle: PostgreSQL on Zerops\ndescription: \"Managed PostgreSQL: ports and variables\"\nkeywords: [postgresql, Postgres, pg]\n---\n\n# PostgreSQL on Zerops\n\nText with zerops://docs/guides/connect-database inline.\n\n```yaml import.yml\nservices:\n  - hostname: db\n```\n\n## See Also\n- zerops://docs/decisions/choose-database\n- zerops://docs/services/mariadb\n";

    #[test]
    fn parses_front_matter_links_and_blocks() {
        let doc = Document::parse("services/postgresql", SAMPLE).unwrap();
        assert_eq!(doc.uri, "zerops://docs/services/postgresql");
        assert_eq!(doc.title, "PostgreSQL on Zerops");
        assert_eq!(doc.description, "Managed PostgreSQL: ports and variables");
        assert_eq!(doc.keywords, vec!["postgresql", "postgres", "pg"]);
        assert_eq!(doc.heading(), Some("PostgreSQL on Zerops"));
        assert_eq!(
            doc.see_also,
            vec![
                "zerops://docs/decisions/choose-database",
                "zerops://docs/services/mariadb"
            ]
        );
        assert_eq!(doc.links().len(), 3);
        let blocks = doc.code_blocks();
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].info, "yaml import.yml");
        assert_eq!(blocks[0].code, "services:\n  - hostname: db\n");
        assert_eq!(blocks[0].line, 11);
    }

    #[test]
    fn rejects_files_without_front_matter() {
        assert!(Document::parse("x/y", "# Title\n").is_err());
        assert!(Document::parse("x/y", "---\ntitle: a\n").is_err());
    }
}
