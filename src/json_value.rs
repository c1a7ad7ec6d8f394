//! A smaller `json!`: builds the same `serde_json::Value` from the same literal syntax, but
//! each member and element costs one out-of-line call, where `serde_json::json!` expands
//! every one of them into inline code (key allocation, conversion, insert, unwrap, drop).
//! Across the crate's result shapes that inline code was tens of KB of the binary.

use serde::Serialize;
use serde_json::{Map, Value};

/// Any serializable value as JSON; `Null` for one that has no JSON form (a map whose
/// keys are not scalars), where `json!` would panic; debug builds (the tests) still do.
#[inline(never)]
pub fn to_value<T: Serialize + ?Sized>(value: &T) -> Value {
    let converted = serde_json::to_value(value);
    debug_assert!(converted.is_ok(), "no JSON form: {converted:?}");
    converted.unwrap_or(Value::Null)
}

/// Adds one member.
#[inline(never)]
pub fn put(map: &mut Map<String, Value>, key: &str, value: Value) {
    map.insert(key.to_owned(), value);
}

/// Adds one element.
#[inline(never)]
pub fn push(items: &mut Vec<Value>, value: Value) {
    items.push(value);
}

/// The `json!` syntax: `null`, `true`, `false`, `{ "key": value, ... }`, `[value, ...]`
/// nested freely, and any Rust expression of a serializable type as a value. Keys are
/// string literals, paths of constants, or expressions in parentheses.
#[macro_export]
macro_rules! json {
    (null) => { ::serde_json::Value::Null };
    ({ $($members:tt)* }) => {{
        #[allow(unused_mut)]
        let mut map = ::serde_json::Map::new();
        $crate::json!(@members map $($members)*);
        ::serde_json::Value::Object(map)
    }};
    ([ $($elements:tt)* ]) => {{
        #[allow(unused_mut)]
        let mut items: ::std::vec::Vec<::serde_json::Value> = ::std::vec::Vec::new();
        $crate::json!(@elements items $($elements)*);
        ::serde_json::Value::Array(items)
    }};
    ($value:expr) => { $crate::json_value::to_value(&$value) };

    (@members $map:ident) => {};
    (@members $map:ident $key:literal : $($rest:tt)*) => {
        $crate::json!(@value $map ($key) $($rest)*);
    };
    (@members $map:ident $key:path : $($rest:tt)*) => {
        $crate::json!(@value $map ($key) $($rest)*);
    };
    (@members $map:ident ($key:expr) : $($rest:tt)*) => {
        $crate::json!(@value $map ($key) $($rest)*);
    };
    (@value $map:ident ($key:expr) null $(, $($rest:tt)*)?) => {
        $crate::json_value::put(&mut $map, &$key, ::serde_json::Value::Null);
        $crate::json!(@members $map $($($rest)*)?);
    };
    (@value $map:ident ($key:expr) { $($inner:tt)* } $(, $($rest:tt)*)?) => {
        $crate::json_value::put(&mut $map, &$key, $crate::json!({ $($inner)* }));
        $crate::json!(@members $map $($($rest)*)?);
    };
    (@value $map:ident ($key:expr) [ $($inner:tt)* ] $(, $($rest:tt)*)?) => {
        $crate::json_value::put(&mut $map, &$key, $crate::json!([ $($inner)* ]));
        $crate::json!(@members $map $($($rest)*)?);
    };
    (@value $map:ident ($key:expr) $value:expr $(, $($rest:tt)*)?) => {
        $crate::json_value::put(&mut $map, &$key, $crate::json_value::to_value(&$value));
        $crate::json!(@members $map $($($rest)*)?);
    };

    (@elements $items:ident) => {};
    (@elements $items:ident null $(, $($rest:tt)*)?) => {
        $crate::json_value::push(&mut $items, ::serde_json::Value::Null);
        $crate::json!(@elements $items $($($rest)*)?);
    };
    (@elements $items:ident { $($inner:tt)* } $(, $($rest:tt)*)?) => {
        $crate::json_value::push(&mut $items, $crate::json!({ $($inner)* }));
        $crate::json!(@elements $items $($($rest)*)?);
    };
    (@elements $items:ident [ $($inner:tt)* ] $(, $($rest:tt)*)?) => {
        $crate::json_value::push(&mut $items, $crate::json!([ $($inner)* ]));
        $crate::json!(@elements $items $($($rest)*)?);
    };
    (@elements $items:ident $value:expr $(, $($rest:tt)*)?) => {
        $crate::json_value::push(&mut $items, $crate::json_value::to_value(&$value));
        $crate::json!(@elements $items $($($rest)*)?);
    };
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    mod keys {
        pub const NAME: &str = "name";
    }

    /// Every form the crate writes gives what `serde_json::json!` gives.
    #[test]
    fn builds_what_serde_json_builds() {
        let id = String::from("p1");
        let maybe: Option<&str> = None;
        let list = vec![1, 2];
        let key = format!("{id}.mode");
        let ours: Value = crate::json!({
            "id": id,
            "none": null,
            "flag": true,
            "count": -3,
            "missing": maybe,
            keys::NAME: "x",
            (key): ["a", {"deep": [null, [1.5]]}, list],
            "empty": {},
            "nothing": [],
            "sum": 1 + 2,
        });
        let theirs = serde_json::json!({
            "id": id,
            "none": null,
            "flag": true,
            "count": -3,
            "missing": maybe,
            keys::NAME: "x",
            key: ["a", {"deep": [null, [1.5]]}, list],
            "empty": {},
            "nothing": [],
            "sum": 1 + 2,
        });
        assert_eq!(ours, theirs);
        assert_eq!(crate::json!(null), Value::Null);
        assert_eq!(crate::json!([1, "two"]), serde_json::json!([1, "two"]));
        assert_eq!(crate::json!(list), serde_json::json!([1, 2]));
    }
}
