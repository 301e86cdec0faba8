//! A small SQL grammar driven by bytes, for the guard's fuzz target and its test: statements over allowed and
//! secret tables with CTEs (shadowing ones too), subqueries, set operations, `TABLE x`, table functions, locks,
//! executable comments and function calls, each with the oracle's answer: whether it reads a secret table or
//! does something the guard must refuse.

use wenshu_sql::guard::Dialect;

/// The tables a generated statement may read.
pub const ALLOWED: &[&str] = &["sales", "movies"];
/// The tables it must never read.
pub const SECRET: &[&str] = &["users", "secrets"];
/// Names CTEs are given: some shadow a table.
const CTE_NAMES: &[&str] = &["c1", "c2", "users", "sales", "secrets"];
/// Functions called: allowed ones and ones the guard must refuse.
const FUNCTIONS: &[(&str, bool)] = &[
    ("upper('a')", false),
    ("count(*)", false),
    ("round(1.5)", false),
    ("coalesce(NULL, 1)", false),
    ("pg_sleep(1)", true),
    ("sleep(1)", true),
    ("version()", true),
    ("load_extension('x')", true),
    ("query_to_xml('select * from users', true, true, '')", true),
    ("set_config('role', 'x', false)", true),
    ("pg_read_file('/etc/passwd')", true),
];

/// One generated statement.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The dialect it is written in.
    pub dialect: Dialect,
    /// The text.
    pub sql: String,
    /// Whether the guard must refuse it (it reads a secret table or uses a refused construct).
    pub must_refuse: bool,
}

/// Reads choices from bytes; 0 once they run out.
struct Choices<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Choices<'_> {
    fn pick(&mut self, n: usize) -> usize {
        let byte = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        byte as usize % n.max(1)
    }
}

/// The generator's state: dialect, what must be refused, how many aliases are used.
struct Gen<'a> {
    choices: Choices<'a>,
    dialect: Dialect,
    must_refuse: bool,
    aliases: usize,
}

/// The statement `bytes` describe.
pub fn generate(bytes: &[u8]) -> Generated {
    let mut choices = Choices { bytes, at: 0 };
    let dialect = match choices.pick(3) {
        0 => Dialect::Sqlite,
        1 => Dialect::Postgres,
        _ => Dialect::MySql,
    };
    let mut generator = Gen {
        choices,
        dialect,
        must_refuse: false,
        aliases: 0,
    };
    let mut sql = generator.query(&[], 0);
    match generator.choices.pick(12) {
        0 => {
            sql.push_str(" /*! UNION SELECT * FROM users */");
            generator.must_refuse = true;
        }
        1 => {
            sql.push_str("; SELECT 1");
            generator.must_refuse = true;
        }
        2 => sql.insert_str(0, "-- a note\n"),
        3 => sql.push_str(" /* plain */"),
        _ => {}
    }
    Generated {
        dialect,
        sql,
        must_refuse: generator.must_refuse,
    }
}

impl Gen<'_> {
    /// A query block; `scopes` are the CTE names visible from the enclosing blocks, innermost last.
    fn query(&mut self, scopes: &[Vec<String>], depth: usize) -> String {
        let mut text = String::new();
        let mut own: Vec<String> = Vec::new();
        if depth < 3 && self.choices.pick(3) == 0 {
            let count = 1 + self.choices.pick(2);
            let mut names: Vec<String> = Vec::new();
            for _ in 0..count {
                let name = CTE_NAMES[self.choices.pick(CTE_NAMES.len())].to_string();
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            let mut parts = Vec::new();
            for name in names.clone() {
                // SQLite's CTE bodies see every CTE of their WITH, themselves and later ones included; PostgreSQL's
                // and MySQL's only the earlier ones (without RECURSIVE).
                let mut visible = scopes.to_vec();
                visible.push(own.clone());
                if self.dialect == Dialect::Sqlite {
                    visible.push(names.clone());
                }
                let body = self.query(&visible, depth + 1);
                parts.push(format!("{name} AS ({body})"));
                own.push(name);
            }
            text.push_str(&format!("WITH {} ", parts.join(", ")));
        }
        let mut visible = scopes.to_vec();
        visible.push(own);
        text.push_str(&self.body(&visible, depth));
        if self.choices.pick(16) == 0 {
            text.push_str(" FOR UPDATE");
            self.must_refuse = true;
        }
        text
    }

    fn body(&mut self, scopes: &[Vec<String>], depth: usize) -> String {
        match self.choices.pick(6) {
            0 if depth < 3 => format!(
                "{} UNION ALL {}",
                self.select(scopes, depth),
                self.select(scopes, depth)
            ),
            1 if self.dialect == Dialect::Postgres => format!("TABLE {}", self.table(scopes)),
            _ => self.select(scopes, depth),
        }
    }

    fn select(&mut self, scopes: &[Vec<String>], depth: usize) -> String {
        let item = match self.choices.pick(4) {
            0 => {
                let (call, refused) = FUNCTIONS[self.choices.pick(FUNCTIONS.len())];
                self.must_refuse |= refused;
                call.to_string()
            }
            1 => "1".to_string(),
            _ => "*".to_string(),
        };
        let from = self.from(scopes, depth);
        let filter = self.filter(scopes, depth);
        format!("SELECT {item} FROM {from}{filter}")
    }

    fn alias(&mut self) -> String {
        self.aliases += 1;
        format!("t{}", self.aliases)
    }

    fn from(&mut self, scopes: &[Vec<String>], depth: usize) -> String {
        match self.choices.pick(7) {
            0 if depth < 3 => {
                let inner = self.query(scopes, depth + 1);
                let alias = self.alias();
                format!("({inner}) AS {alias}")
            }
            1 => {
                let (left, right) = (self.table(scopes), self.table(scopes));
                let (a, b) = (self.alias(), self.alias());
                format!("{left} AS {a} JOIN {right} AS {b} ON 1 = 1")
            }
            2 => {
                let table = self.table(scopes);
                let alias = self.alias();
                match self.dialect {
                    Dialect::Postgres => {
                        self.must_refuse = true;
                        format!("{table}, LATERAL query_to_xml('select * from users', true, true, '') AS {alias}")
                    }
                    Dialect::Sqlite | Dialect::Custom(_) => format!("{table}, json_each('[1]') AS {alias}"),
                    Dialect::MySql => {
                        self.must_refuse = true;
                        format!("{table}, (SELECT * FROM mysql.user) AS {alias}")
                    }
                }
            }
            3 if self.dialect == Dialect::Postgres => {
                self.must_refuse = true;
                format!("generate_series(1, 1000000000) AS {}", self.alias())
            }
            _ => self.table(scopes),
        }
    }

    fn filter(&mut self, scopes: &[Vec<String>], depth: usize) -> String {
        if depth >= 3 {
            return String::new();
        }
        match self.choices.pick(5) {
            0 => format!(" WHERE EXISTS ({})", self.query(scopes, depth + 1)),
            1 => format!(" WHERE 1 IN (SELECT 1 FROM {})", self.table(scopes)),
            2 => " WHERE 1 = 1".to_string(),
            _ => String::new(),
        }
    }

    /// A table or CTE name, as written (case and quoting vary); records a read of a secret table unless the
    /// name is, for certain, a CTE in scope.
    fn table(&mut self, scopes: &[Vec<String>]) -> String {
        let visible: Vec<&String> = scopes.iter().flatten().collect();
        let pool: Vec<String> = ALLOWED
            .iter()
            .chain(SECRET)
            .map(|t| t.to_string())
            .chain(visible.iter().map(|c| c.to_string()))
            .collect();
        let name = pool[self.choices.pick(pool.len())].clone();
        let written = match self.choices.pick(4) {
            0 => name.to_ascii_uppercase(),
            1 => match self.dialect {
                Dialect::MySql => format!("`{name}`"),
                _ => format!("\"{name}\""),
            },
            _ => name.clone(),
        };
        // PostgreSQL and SQLite fold every form written here to `name`; MySQL's CTE names may keep their case.
        let case_kept = self.dialect == Dialect::MySql && written == name.to_ascii_uppercase() && written != name;
        let surely_cte = visible.iter().any(|c| **c == name) && !case_kept;
        if !surely_cte && SECRET.iter().any(|s| s.eq_ignore_ascii_case(&name)) {
            self.must_refuse = true;
        }
        written
    }
}
