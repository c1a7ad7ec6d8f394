//! `zerops.yml`: the top level, the setup list, `extends` (Z1–Z10) and the merged view of
//! each setup that the section modules check. Structural checks look at what each setup
//! writes itself (so a problem is reported once, where it is written); checks that depend
//! on the whole setup (is there a `start`, which base runs it) look at the merged view.

use std::collections::HashMap;
use std::rc::Rc;

use super::report::{Pos, Severity, Sink, index, join};
use super::shape;
use super::suggest;
use super::yaml::{Entry, Node, Value};
use super::{zerops_build, zerops_run};

const TOP_KEYS: &[&str] = &["zerops"];
const SETUP_KEYS: &[&str] = &["setup", "extends", "build", "deploy", "run"];

/// One section (`build`, `deploy`, `run`) of a setup after `extends` is applied: the
/// parents' keys overlaid by the setup's own, key by key.
#[derive(Debug, Clone, Default)]
pub struct Section<'a> {
    /// Read-only outside this module: `slot` must keep pointing into it.
    pub entries: Vec<&'a Entry>,
    /// The setup's own `build:`/`run:` key, when it writes the section itself.
    pub own: Option<&'a Entry>,
    /// Where each key sits in `entries`. Finding a key by scanning `entries` made merging
    /// a section with 200 000 keys take minutes; a lookup keeps it linear.
    slot: HashMap<&'a str, usize>,
}

impl<'a> Section<'a> {
    pub fn get(&self, key: &str) -> Option<&'a Entry> {
        self.slot
            .get(key)
            .and_then(|&i| self.entries.get(i).copied())
    }

    pub fn value(&self, key: &str) -> Option<&'a Node> {
        self.get(key).map(|e| &e.value)
    }

    /// Adds an entry, replacing an inherited one with the same key in its place.
    fn put(&mut self, e: &'a Entry) {
        match self.slot.get(e.key.as_str()) {
            Some(&i) => self.entries[i] = e,
            None => {
                self.slot.insert(&e.key, self.entries.len());
                self.entries.push(e);
            }
        }
    }
}

/// A setup with `extends` applied.
#[derive(Debug, Clone, Default)]
pub struct Merged<'a> {
    pub build: Option<Section<'a>>,
    pub deploy: Option<Section<'a>>,
    pub run: Option<Section<'a>>,
}

/// What the merged checks need to know about the setup they look at.
pub struct SetupCtx<'a> {
    pub path: String,
    /// Where setup-wide findings go: the `setup:` value, else the item.
    pub at: Pos,
    pub merged: &'a Merged<'a>,
    /// Another setup extends this one. Such a setup is often a shared base that is never
    /// deployed itself, so it need not be complete: the findings about a missing `run`,
    /// `start`, `ports` or `deployFiles` are left to the setups that extend it, which are
    /// checked with the inherited keys merged in.
    pub extended: bool,
}

struct Setup<'a> {
    item: &'a Node,
    name: Option<&'a str>,
    at: Pos,
    extends: Vec<(&'a str, &'a Node)>,
    extends_entry: Option<&'a Entry>,
}

/// Checks a whole `zerops.yml` document rooted at `root` (a mapping). `prefix` is prepended
/// to paths (for a `zeropsYaml` embedded in an import). Returns the setup names.
pub fn check(sink: &mut Sink, root: &Node, prefix: &str) -> Vec<String> {
    let Some(top) = root.as_map() else {
        return Vec::new();
    };
    let Some(zerops) = root.get("zerops") else {
        missing_zerops(sink, top, prefix, Pos::from(root));
        return Vec::new();
    };
    shape::unknown_keys(
        sink,
        "Z4",
        Severity::Error,
        top,
        prefix,
        TOP_KEYS,
        &[
            (
                "services",
                "that is import.yml content",
                "move the services list into a separate import.yml (zerops_import)",
            ),
            (
                "project",
                "that is import.yml content",
                "move the project block into an import.yml",
            ),
        ],
    );
    let list_path = join(prefix, "zerops");
    let items = match &zerops.value.value {
        Value::Seq(items) if !items.is_empty() => items,
        Value::Seq(_) | Value::Null => {
            sink.error(
                "Z3",
                &list_path,
                Pos::from(zerops),
                "`zerops` lists no setups",
                "add at least one item: `- setup: <hostname>` with build and run sections",
            );
            return Vec::new();
        }
        _ => {
            sink.error(
                "Z2",
                &list_path,
                Pos::from(&zerops.value),
                format!(
                    "`zerops` must be a list of setups, found {}",
                    shape::describe(&zerops.value)
                ),
                "start each setup with `- setup: <name>` indented under `zerops:`",
            );
            return Vec::new();
        }
    };
    let setups: Vec<Setup> = items
        .iter()
        .enumerate()
        .map(|(i, item)| read_setup(sink, item, &index(&list_path, i)))
        .collect();
    let first = first_by_name(&setups);
    let graph = parent_graph(&setups, &first);
    duplicate_names(sink, &setups, &first, &list_path);
    resolve_extends(sink, &setups, &first, &graph, &list_path);
    let (merged, cut) = merge_all(&setups, &graph);
    if cut {
        sink.error(
            "Z9",
            &list_path,
            Pos::from(zerops),
            format!("`extends` copies more than {MAX_INHERITED_KEYS} inherited keys; past that, setups were checked with their own keys only"),
            "extend large bases from fewer setups, or move shared keys into each setup",
        );
    }
    let extended = extended_setups(&graph);
    for (i, setup) in setups.iter().enumerate() {
        let path = index(&list_path, i);
        let Some(map) = setup.item.as_map() else {
            continue;
        };
        for entry in map {
            let p = join(&path, &entry.key);
            match entry.key.as_str() {
                "build" => zerops_build::check_build(sink, &entry.value, &p),
                "deploy" => zerops_build::check_deploy(sink, &entry.value, &p),
                "run" => zerops_run::check_run(sink, &entry.value, &p),
                _ => {}
            }
        }
        let ctx = SetupCtx {
            path,
            at: setup.at,
            merged: &merged[i],
            extended: extended[i],
        };
        zerops_build::check_merged(sink, &ctx);
        zerops_run::check_merged(sink, &ctx);
    }
    setups
        .iter()
        .filter_map(|s| s.name.map(str::to_owned))
        .collect()
}

fn missing_zerops(sink: &mut Sink, top: &[Entry], prefix: &str, at: Pos) {
    let keys: Vec<&str> = top.iter().map(|e| e.key.as_str()).collect();
    let legacy = top
        .iter()
        .any(|e| e.value.get("build").is_some() || e.value.get("run").is_some());
    let (message, fix) = if keys.contains(&"services") || keys.contains(&"project") {
        (
            "no `zerops:` list; this looks like import.yml content (services/project)".to_owned(),
            "validate it as import.yml, or write `zerops:` with a list of setups".to_owned(),
        )
    } else if legacy {
        (
            "no `zerops:` list; this is the pre-2023 format keyed by hostname".to_owned(),
            "rewrite it as `zerops:` followed by `- setup: <hostname>` items; rename build.build → build.buildCommands, build.prepare → build.prepareCommands, build.deploy → build.deployFiles, run.init → run.initCommands, run.prepare → run.prepareCommands".to_owned(),
        )
    } else {
        match suggest::closest("zerops", &keys, 1).first() {
            Some(near) => (
                format!("no `zerops:` list (found `{near}`)"),
                "rename it to `zerops`".to_owned(),
            ),
            None => (
                "no `zerops:` list".to_owned(),
                "start the file with `zerops:` and a list of `- setup: <hostname>` items"
                    .to_owned(),
            ),
        }
    };
    sink.error("Z1", prefix, at, message, fix);
}

fn read_setup<'a>(sink: &mut Sink, item: &'a Node, path: &str) -> Setup<'a> {
    let mut setup = Setup {
        item,
        name: None,
        at: Pos::from(item),
        extends: Vec::new(),
        extends_entry: None,
    };
    let Some(map) = item.as_map() else {
        sink.error(
            "Z5",
            path,
            Pos::from(item),
            format!(
                "each setup must be a mapping, found {}",
                shape::describe(item)
            ),
            "write `- setup: <name>` followed by its build/run sections",
        );
        return setup;
    };
    shape::unknown_keys(
        sink,
        "Z8",
        Severity::Error,
        map,
        path,
        SETUP_KEYS,
        &[
            (
                "hostname",
                "setups are matched by `setup`",
                "rename `hostname` to `setup`",
            ),
            (
                "name",
                "setups are named by `setup`",
                "rename `name` to `setup`",
            ),
            (
                "envVariables",
                "variables belong to a section",
                "move it under `run:` (or `build:` for build-time variables)",
            ),
        ],
    );
    match item.get("setup") {
        None => sink.error(
            "Z5",
            path,
            Pos::from(item),
            "this setup has no `setup:` name",
            "add `setup: <hostname of the service>` as its first key",
        ),
        Some(e) => {
            let p = join(path, "setup");
            setup.at = Pos::from(&e.value);
            match &e.value.value {
                Value::Str(s) if !s.trim().is_empty() => setup.name = Some(s),
                Value::Int(_) | Value::Float(_) | Value::Bool(_) => {
                    sink.warn(
                        "Z5",
                        &p,
                        Pos::from(&e.value),
                        format!("setup name `{}` is not a string", e.value.raw()),
                        format!("quote it: `setup: \"{}\"`", e.value.raw()),
                    );
                    setup.name = Some(e.value.raw());
                }
                _ => sink.error(
                    "Z5",
                    &p,
                    Pos::from(&e.value),
                    "the setup name is empty or not text",
                    "write `setup: <hostname of the service>`",
                ),
            }
        }
    }
    if let Some(e) = item.get("extends") {
        setup.extends_entry = Some(e);
        let p = join(path, "extends");
        match &e.value.value {
            Value::Str(s) if !s.trim().is_empty() => setup.extends.push((s, &e.value)),
            Value::Seq(list) => {
                for (i, n) in list.iter().enumerate() {
                    match n.as_str() {
                        Some(s) if !s.trim().is_empty() => setup.extends.push((s, n)),
                        _ => sink.error(
                            "Z9",
                            &index(&p, i),
                            Pos::from(n),
                            "each `extends` entry must name a setup",
                            "write the `setup` name of another item",
                        ),
                    }
                }
            }
            _ => sink.error(
                "Z9",
                &p,
                Pos::from(&e.value),
                format!(
                    "`extends` must name a setup (or a list of them), found {}",
                    shape::describe(&e.value)
                ),
                "write `extends: <setup name>`",
            ),
        }
    }
    setup
}

/// Where each setup name is first defined. Every name lookup goes through this map:
/// scanning the setup list per setup made a file with 40 000 setups take seconds.
fn first_by_name<'a>(setups: &[Setup<'a>]) -> HashMap<&'a str, usize> {
    let mut first = HashMap::with_capacity(setups.len());
    for (i, s) in setups.iter().enumerate() {
        if let Some(name) = s.name {
            first.entry(name).or_insert(i);
        }
    }
    first
}

fn duplicate_names(
    sink: &mut Sink,
    setups: &[Setup],
    first: &HashMap<&str, usize>,
    list_path: &str,
) {
    for (i, s) in setups.iter().enumerate() {
        let Some(name) = s.name else { continue };
        let Some(&first) = first.get(name).filter(|&&f| f < i) else {
            continue;
        };
        sink.error(
            "Z6",
            &join(&index(list_path, i), "setup"),
            s.at,
            format!("setup `{name}` is defined twice (first as zerops[{first}])"),
            "give each setup a unique name (usually the hostname of the service it deploys to)",
        );
    }
}

fn resolve_extends(
    sink: &mut Sink,
    setups: &[Setup],
    first: &HashMap<&str, usize>,
    graph: &[Vec<usize>],
    list_path: &str,
) {
    let names: Vec<&str> = setups.iter().filter_map(|s| s.name).collect();
    let cyclic = on_cycle(graph);
    for (i, s) in setups.iter().enumerate() {
        let p = join(&index(list_path, i), "extends");
        for (target, node) in &s.extends {
            if Some(*target) == s.name {
                sink.error(
                    "Z9",
                    &p,
                    Pos::from(*node),
                    format!("setup `{target}` extends itself"),
                    "remove `extends` or name another setup",
                );
            } else if !first.contains_key(target) {
                sink.error(
                    "Z9",
                    &p,
                    Pos::from(*node),
                    format!("`extends` names `{target}`, which is not a setup in this file"),
                    suggest::did_you_mean(target, &names, "setups"),
                );
            }
        }
        if cyclic[i]
            && let Some(e) = s.extends_entry
        {
            sink.error(
                "Z9",
                &p,
                Pos::from(e),
                "`extends` forms a cycle",
                "make the chain end in a setup that extends nothing",
            );
        }
    }
}

/// For each setup, the setups it extends (by index, in `extends` order). A name that is
/// the setup's own or names no setup gives no edge; a duplicated name means its first
/// definition.
fn parent_graph(setups: &[Setup], first: &HashMap<&str, usize>) -> Vec<Vec<usize>> {
    setups
        .iter()
        .map(|s| {
            s.extends
                .iter()
                .filter(|(t, _)| Some(*t) != s.name)
                .filter_map(|(t, _)| first.get(t).copied())
                .collect()
        })
        .collect()
}

/// For each setup, whether some other setup names it in `extends`.
fn extended_setups(graph: &[Vec<usize>]) -> Vec<bool> {
    let mut extended = vec![false; graph.len()];
    for &p in graph.iter().flatten() {
        extended[p] = true;
    }
    extended
}

/// For each setup, whether following `extends` from it comes back to it, i.e. whether it
/// lies in a strongly connected group of two or more setups (the graph has no self-edges).
/// One iterative pass of Tarjan's algorithm: following the chain from every setup in turn
/// was quadratic for a long chain, and recursion could exhaust the stack.
fn on_cycle(graph: &[Vec<usize>]) -> Vec<bool> {
    let mut walk = Tarjan {
        graph,
        order: vec![None; graph.len()],
        low: vec![0; graph.len()],
        on_stack: vec![false; graph.len()],
        stack: Vec::new(),
        calls: Vec::new(),
        next: 0,
        cyclic: vec![false; graph.len()],
    };
    for root in 0..graph.len() {
        if walk.order[root].is_none() {
            walk.run(root);
        }
    }
    walk.cyclic
}

/// The state of [`on_cycle`]'s walk; `calls` replaces recursion (each frame is a setup
/// and how many of its parents have been followed).
struct Tarjan<'g> {
    graph: &'g [Vec<usize>],
    order: Vec<Option<usize>>,
    low: Vec<usize>,
    on_stack: Vec<bool>,
    stack: Vec<usize>,
    calls: Vec<(usize, usize)>,
    next: usize,
    cyclic: Vec<bool>,
}

impl Tarjan<'_> {
    fn enter(&mut self, v: usize) {
        self.order[v] = Some(self.next);
        self.low[v] = self.next;
        self.next += 1;
        self.stack.push(v);
        self.on_stack[v] = true;
        self.calls.push((v, 0));
    }

    fn run(&mut self, root: usize) {
        self.enter(root);
        while let Some(frame) = self.calls.last_mut() {
            let (v, done) = *frame;
            if let Some(&w) = self.graph[v].get(done) {
                frame.1 += 1;
                match self.order[w] {
                    None => self.enter(w),
                    Some(seen) if self.on_stack[w] => self.low[v] = self.low[v].min(seen),
                    Some(_) => {}
                }
                continue;
            }
            self.calls.pop();
            if let Some(&(u, _)) = self.calls.last() {
                self.low[u] = self.low[u].min(self.low[v]);
            }
            if Some(self.low[v]) == self.order[v] {
                self.close_group(v);
            }
        }
    }

    /// Pops the group whose first-entered setup is `v`; a group of two or more is a cycle.
    fn close_group(&mut self, v: usize) {
        let mut members = Vec::new();
        while let Some(w) = self.stack.pop() {
            self.on_stack[w] = false;
            members.push(w);
            if w == v {
                break;
            }
        }
        if members.len() > 1 {
            for w in members {
                self.cyclic[w] = true;
            }
        }
    }
}

/// Longest `extends` chain followed; deeper ones are cut (no real file comes close).
const MAX_EXTENDS_DEPTH: usize = 32;

/// Most inherited keys copied into merged views, over the whole file. Every setup that
/// extends a base copies the base's keys, so a base with 30 000 keys extended by 20 000
/// setups (1.2 MB) needed gigabytes; real files copy a few hundred. Past this, setups
/// keep only their own keys and one Z9 error says so.
const MAX_INHERITED_KEYS: usize = 100_000;

/// The merged views of all setups, and whether [`MAX_INHERITED_KEYS`] cut inheritance.
fn merge_all<'a>(setups: &[Setup<'a>], graph: &[Vec<usize>]) -> (Vec<Rc<Merged<'a>>>, bool) {
    let mut walk = MergeWalk::new(setups, graph);
    let merged = (0..setups.len()).map(|i| walk.merge(i, 0)).collect();
    (merged, walk.budget == 0)
}

/// State of merging: finished views are shared (an `Rc`), not copied, when reused.
struct MergeWalk<'s, 'a> {
    setups: &'s [Setup<'a>],
    graph: &'s [Vec<usize>],
    on_path: Vec<bool>,
    memo: Vec<Option<Rc<Merged<'a>>>>,
    /// Inherited keys that may still be copied.
    budget: usize,
}

impl<'s, 'a> MergeWalk<'s, 'a> {
    fn new(setups: &'s [Setup<'a>], graph: &'s [Vec<usize>]) -> Self {
        MergeWalk {
            setups,
            graph,
            on_path: vec![false; setups.len()],
            memo: vec![None; setups.len()],
            budget: MAX_INHERITED_KEYS,
        }
    }

    /// Parents first (in `extends` order), then the setup's own sections. Cycles and
    /// unknown names were reported; here they are just skipped.
    fn merge(&mut self, i: usize, depth: usize) -> Rc<Merged<'a>> {
        if let Some(done) = &self.memo[i] {
            return done.clone();
        }
        self.on_path[i] = true;
        let mut merged = Merged::default();
        for &p in &self.graph[i] {
            if self.on_path[p] || depth >= MAX_EXTENDS_DEPTH {
                continue;
            }
            let parent = self.merge(p, depth + 1);
            for (mine, theirs) in [
                (&mut merged.build, &parent.build),
                (&mut merged.deploy, &parent.deploy),
                (&mut merged.run, &parent.run),
            ] {
                if let Some(theirs) = theirs {
                    let section = mine.get_or_insert_with(Section::default);
                    for e in &theirs.entries {
                        if self.budget == 0 {
                            break;
                        }
                        self.budget -= 1;
                        section.put(e);
                    }
                }
            }
        }
        self.on_path[i] = false;
        if let Some(map) = self.setups[i].item.as_map() {
            for entry in map {
                let slot = match entry.key.as_str() {
                    "build" => &mut merged.build,
                    "deploy" => &mut merged.deploy,
                    "run" => &mut merged.run,
                    _ => continue,
                };
                let section = slot.get_or_insert_with(Section::default);
                section.own = Some(entry);
                if let Some(entries) = entry.value.as_map() {
                    for e in entries {
                        section.put(e);
                    }
                }
            }
        }
        let merged = Rc::new(merged);
        self.memo[i] = Some(merged.clone());
        merged
    }
}

/// `run.<key>` of the setup named `name` after `extends` is applied, as the checks see
/// it: `None` when the document has no such setup, `Some(None)` when the setup has no such
/// key of its own or inherited.
pub fn merged_run_value<'a>(root: &'a Node, name: &str, key: &str) -> Option<Option<&'a Node>> {
    let items = root.value_of("zerops")?.as_seq()?;
    // Problems with the file are the validator's to report; here they are not wanted.
    let mut unheard = Sink::default();
    let setups: Vec<Setup> = items
        .iter()
        .enumerate()
        .map(|(i, item)| read_setup(&mut unheard, item, &index("zerops", i)))
        .collect();
    let first = first_by_name(&setups);
    let i = *first.get(name)?;
    let graph = parent_graph(&setups, &first);
    let merged = MergeWalk::new(&setups, &graph).merge(i, 0);
    Some(merged.run.as_ref().and_then(|run| run.value(key)))
}

/// Setup names of a document (for the deploy preflight); `None` when there is no usable
/// `zerops` list.
pub fn names(root: &Node) -> Option<Vec<String>> {
    let items = root.value_of("zerops")?.as_seq()?;
    Some(
        items
            .iter()
            .filter_map(|item| item.value_of("setup"))
            .filter_map(|n| n.scalar_text())
            .filter(|s| !s.trim().is_empty())
            .map(str::to_owned)
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::validate::yaml;

    fn mapping(text: &str) -> Node {
        yaml::parse(text).expect("yaml").root.expect("a document")
    }

    /// A child overlaid on a parent: the parent's order stays, each overridden key is
    /// replaced where it was, new keys go last. 50 000 keys keep the lookup honest.
    #[test]
    fn section_overlay_with_many_keys() {
        const N: usize = 50_000;
        let parent: String = (0..N).map(|i| format!("k{i}: p\n")).collect();
        let child: String = (0..N)
            .step_by(2)
            .chain(N..N + 3)
            .map(|i| format!("k{i}: c\n"))
            .collect();
        let (parent, child) = (mapping(&parent), mapping(&child));
        let mut section = Section::default();
        for e in parent.as_map().into_iter().chain(child.as_map()).flatten() {
            section.put(e);
        }
        assert_eq!(section.entries.len(), N + 3);
        for (i, e) in section.entries.iter().enumerate() {
            let want = if i % 2 == 0 || i >= N { "c" } else { "p" };
            assert_eq!(
                (e.key.as_str(), e.value.as_str()),
                (format!("k{i}").as_str(), Some(want))
            );
        }
        assert_eq!(section.value("k4").and_then(Node::as_str), Some("c"));
        assert_eq!(section.value("k5").and_then(Node::as_str), Some("p"));
        assert!(section.get("k99999999").is_none());
    }
}
