//! The SQLite authorizer of a scoped connection: the database itself refuses to read a table that is not
//! allowed or to call a function that is not, whatever SQL reaches it (a guard bug cannot read a secret).

use std::ffi::{CStr, c_char, c_int, c_void};
use std::ptr::NonNull;

use libsqlite3_sys::{
    SQLITE_DENY, SQLITE_FUNCTION, SQLITE_OK, SQLITE_READ, SQLITE_SELECT, sqlite3, sqlite3_set_authorizer,
};

/// What a scoped connection may read and call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadScope {
    /// Tables (and table-valued functions such as `json_each`) that may be read, compared ignoring ASCII case.
    pub tables: Vec<String>,
    /// When not empty, the only functions that may be called (SQLite's operators `like`, `glob`, `->`, `->>` are
    /// added).
    pub allowed_functions: Vec<String>,
    /// Functions never callable.
    pub denied_functions: Vec<String>,
}

/// Functions SQLite calls for operators (`x LIKE y`, `x -> '$.a'`, `MATCH`, `REGEXP`): allowed with any allow
/// list.
const OPERATOR_FUNCTIONS: &[&str] = &["like", "glob", "match", "regexp", "->", "->>"];

impl ReadScope {
    /// Whether a table may be read.
    pub fn may_read(&self, table: &str) -> bool {
        self.tables.iter().any(|t| t.eq_ignore_ascii_case(table))
    }

    /// Whether a function may be called.
    pub fn may_call(&self, function: &str) -> bool {
        if self.denied_functions.iter().any(|f| f.eq_ignore_ascii_case(function)) {
            return false;
        }
        self.allowed_functions.is_empty()
            || OPERATOR_FUNCTIONS.iter().any(|f| f.eq_ignore_ascii_case(function))
            || self.allowed_functions.iter().any(|f| f.eq_ignore_ascii_case(function))
    }

    /// The decision on one action: reads of allowed tables, allowed calls and SELECT itself; nothing else (no
    /// PRAGMA, ATTACH, write, DDL or transaction control).
    fn decide(&self, action: c_int, first: Option<&str>, second: Option<&str>) -> c_int {
        let allowed = match action {
            SQLITE_SELECT => true,
            SQLITE_READ => first.is_some_and(|table| self.may_read(table)),
            SQLITE_FUNCTION => second.is_some_and(|function| self.may_call(function)),
            _ => false,
        };
        if allowed { SQLITE_OK } else { SQLITE_DENY }
    }
}

/// Installs `scope` as the authorizer of the connection `handle`. The scope lives as long as the program (one per
/// pool, shared by its connections), so the callback never sees freed memory.
pub(crate) fn install(handle: NonNull<sqlite3>, scope: &'static ReadScope) {
    let data = scope as *const ReadScope as *mut c_void;
    // SAFETY: `handle` is a live connection held locked by the caller; `data` points to a `'static` scope that the
    // callback only reads.
    unsafe {
        sqlite3_set_authorizer(handle.as_ptr(), Some(authorize), data);
    }
}

unsafe extern "C" fn authorize(
    data: *mut c_void,
    action: c_int,
    first: *const c_char,
    second: *const c_char,
    _database: *const c_char,
    _trigger: *const c_char,
) -> c_int {
    // SAFETY: `data` is the `'static` scope given to `install`; the strings are NUL-terminated or null, valid for
    // the call (SQLite's contract).
    let scope = unsafe { &*(data as *const ReadScope) };
    let text = |p: *const c_char| (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_str().unwrap_or("\u{fffd}"));
    scope.decide(action, text(first), text(second))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_calls_outside_the_scope_are_denied() {
        let scope = ReadScope {
            tables: vec!["sales".into()],
            allowed_functions: vec!["sum".into()],
            denied_functions: vec!["load_extension".into()],
        };
        assert_eq!(scope.decide(SQLITE_READ, Some("SALES"), Some("amount")), SQLITE_OK);
        assert_eq!(scope.decide(SQLITE_READ, Some("users"), Some("password")), SQLITE_DENY);
        assert_eq!(scope.decide(SQLITE_FUNCTION, None, Some("sum")), SQLITE_OK);
        assert_eq!(scope.decide(SQLITE_FUNCTION, None, Some("like")), SQLITE_OK);
        assert_eq!(scope.decide(SQLITE_FUNCTION, None, Some("load_extension")), SQLITE_DENY);
        assert_eq!(scope.decide(SQLITE_FUNCTION, None, Some("upper")), SQLITE_DENY);
        assert_eq!(
            scope.decide(libsqlite3_sys::SQLITE_PRAGMA, Some("table_info"), None),
            SQLITE_DENY
        );
        assert_eq!(
            scope.decide(libsqlite3_sys::SQLITE_ATTACH, Some("x.db"), None),
            SQLITE_DENY
        );
    }
}
