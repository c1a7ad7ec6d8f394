//! Command lists of zerops.yml (Z15) and the package-manager hints for them (Z34).

use super::report::{Pos, Sink, index};
use super::shape::{article, last_segment};
use super::yaml::{Node, Value};

/// Z15: a command list. A single string works but is a warning; other shapes are errors.
/// Returns the commands with their nodes.
pub fn command_list<'a>(sink: &mut Sink, node: &'a Node, path: &str) -> Vec<(&'a Node, String)> {
    match &node.value {
        Value::Str(_) => {
            sink.warn(
                "Z15",
                path,
                Pos::from(node),
                format!(
                    "`{}` should be a list of commands, not a single string",
                    last_segment(path)
                ),
                format!(
                    "write it as a list: `{}:` then `- <command>` on the next line",
                    last_segment(path)
                ),
            );
            vec![(node, path.to_owned())]
        }
        Value::Null => Vec::new(),
        Value::Seq(items) => {
            let mut out = Vec::new();
            for (i, item) in items.iter().enumerate() {
                let p = index(path, i);
                match &item.value {
                    Value::Str(_) => out.push((item, p)),
                    Value::Int(_) | Value::Float(_) | Value::Bool(_) => sink.warn(
                        "Z15",
                        &p,
                        Pos::from(item),
                        format!("command {} is {}, not text", i, article(item.type_name())),
                        format!("quote it: `- \"{}\"`", item.raw()),
                    ),
                    Value::Null => sink.warn("Z15", &p, Pos::from(item), format!("command {i} is empty"), "remove the empty `-` line"),
                    Value::Map(_) | Value::Seq(_) => sink.error(
                        "Z15",
                        &p,
                        Pos::from(item),
                        format!("command {} is {}; commands are strings", i, article(item.type_name())),
                        "quote the command (a `key: value` inside a command needs quotes), or use `- |` for a multi-line script",
                    ),
                }
            }
            out
        }
        _ => {
            sink.error(
                "Z15",
                path,
                Pos::from(node),
                format!(
                    "`{}` must be a list of commands, found {}",
                    last_segment(path),
                    article(node.type_name())
                ),
                "write one `- <command>` per line",
            );
            Vec::new()
        }
    }
}

/// Z34: `apk`/`apt-get` need `sudo`, and the one matching the OS.
pub fn check_packages(sink: &mut Sink, node: &Node, path: &str, os: &str) {
    let commands: Vec<(&Node, String)> = match &node.value {
        Value::Seq(items) => items
            .iter()
            .enumerate()
            .map(|(i, n)| (n, index(path, i)))
            .collect(),
        Value::Str(_) => vec![(node, path.to_owned())],
        _ => return,
    };
    for (cmd, path) in commands {
        let path = path.as_str();
        let Some(text) = cmd.as_str() else { continue };
        for segment in text.split(['\n', ';', '|', '&']) {
            let mut words = segment
                .split_whitespace()
                .skip_while(|w| w.contains('=') && !w.starts_with('-'));
            let Some(mut tool) = words.next() else {
                continue;
            };
            let sudo = tool == "sudo";
            if sudo {
                let Some(t) = words
                    .by_ref()
                    .find(|w| !w.starts_with('-') && !w.contains('='))
                else {
                    continue;
                };
                tool = t;
            }
            let Some(sub) = words.find(|w| !w.starts_with('-')) else {
                continue;
            };
            let apk = tool == "apk" && ["add", "del", "update", "upgrade"].contains(&sub);
            let apt = (tool == "apt-get" || tool == "apt")
                && [
                    "install",
                    "update",
                    "upgrade",
                    "remove",
                    "purge",
                    "dist-upgrade",
                ]
                .contains(&sub);
            if !(apk || apt) {
                continue;
            }
            if !sudo {
                sink.warn(
                    "Z34",
                    path,
                    Pos::from(cmd),
                    format!("`{tool} {sub}` runs without sudo; commands run as the zerops user"),
                    format!("prefix it: `sudo {tool} {sub} …`"),
                );
            }
            if apk && os == "ubuntu" {
                sink.warn(
                    "Z34",
                    path,
                    Pos::from(cmd),
                    "`apk` is Alpine's package manager but this phase runs on Ubuntu",
                    "use `sudo apt-get update && sudo apt-get install -y …`",
                );
            } else if apt && os == "alpine" {
                sink.warn("Z34", path, Pos::from(cmd), format!("`{tool}` is Ubuntu's package manager but this phase runs on Alpine (the default)"), "use `sudo apk add …`, or set `os: ubuntu`");
            }
        }
    }
}
