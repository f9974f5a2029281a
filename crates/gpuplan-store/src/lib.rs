//! gpuplan-store: the app's local SQLite database. Every line of SQL in
//! gpuplan lives in this crate.
//!
//! What it keeps: saved plans, the ledger of real bills (with plan-versus-
//! actual), the user's price overrides, imported course packs and settings.
//! The schema is versioned by `rusqlite_migration` (SQLite `user_version`);
//! each migration is tested from an empty database and from the schema before
//! it. The database runs in WAL mode and every write is one transaction, so a
//! crash loses at most the write in flight. Times are passed in by the caller
//! (the store reads no clock), as ISO-8601 text.

use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension, Transaction};
use rusqlite_migration::{Migrations, M};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// Store failures.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite refused.
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A migration failed.
    #[error("migration: {0}")]
    Migration(#[from] rusqlite_migration::Error),
    /// The database was written by a newer gpuplan.
    #[error("the database has schema version {found}; this gpuplan knows up to {known}")]
    TooNew {
        /// Version in the file.
        found: i64,
        /// Latest this build knows.
        known: i64,
    },
    /// A stored value does not parse.
    #[error("stored value for {what} is invalid: {detail}")]
    Corrupt {
        /// Which value.
        what: String,
        /// Why.
        detail: String,
    },
    /// A stored value of a row does not read (a hand-edited database): the
    /// row and its field are named, with the value as stored.
    #[error("the stored {what} is not a number: {value}")]
    BadValue {
        /// The field and its row (`ledger[3].cost`).
        what: String,
        /// The value as stored, quoted.
        value: String,
    },
    /// Another process holds the database longer than the wait allows.
    #[error("the database is busy (another gpuplan is using it) and stayed busy for {waited_s} s; nothing was changed, try again")]
    Busy {
        /// Seconds waited.
        waited_s: u64,
    },
    /// The database (or the lock beside it) cannot be created or written:
    /// a read-only folder, a folder where the file should be, a full disk.
    #[error("the database at {path} cannot be used: {reason}; nothing was saved")]
    Unwritable {
        /// The file.
        path: String,
        /// What the operating system or SQLite said.
        reason: String,
    },
    /// This store only browses: it opened without its file (see
    /// [`Store::browse_without_saving`]), so a write would be lost.
    #[error("not saved: {reason}")]
    ReadOnly {
        /// Why the database could not be opened.
        reason: String,
    },
    /// No such row.
    #[error("{what} {id} does not exist")]
    NotFound {
        /// Kind of row.
        what: &'static str,
        /// Its id.
        id: i64,
    },
}

/// How long a command waits for another process's lock on the database.
pub const BUSY_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// How long a process waits for another one to create or migrate the
/// database on first use: a migration copies the old file first, which on a
/// large ledger takes longer than an ordinary write.
pub const FIRST_USE_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// An exclusive lock on `<database>.lock`, held while the database is
/// created and migrated, so that of several processes starting at once one
/// does it and the others wait and then find it ready. Released on drop (the
/// file is closed); the lock file itself is left, empty, for the next one.
struct FirstUseLock(#[allow(dead_code)] std::fs::File);

impl FirstUseLock {
    fn acquire(db: &Path, wait: std::time::Duration) -> Result<Self, StoreError> {
        let path = db.with_extension("db.lock");
        let unwritable = |e: std::io::Error| StoreError::Unwritable {
            path: path.display().to_string(),
            reason: e.to_string(),
        };
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(unwritable)?;
        let started = std::time::Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(Self(file)),
                Err(std::fs::TryLockError::WouldBlock) => {
                    if started.elapsed() >= wait {
                        return Err(StoreError::Busy {
                            waited_s: wait.as_secs(),
                        });
                    }
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(unwritable(e)),
            }
        }
    }
}

/// Why a database could not be opened, for deciding what to do with it.
enum Unusable {
    /// Locked by another process: wait and retry, never touch it.
    Busy,
    /// Not a database, structurally broken, or from a newer gpuplan: kept
    /// aside and replaced.
    Corrupt,
    /// Anything else (permissions, a full disk): reported, file untouched.
    Other,
}

fn sqlite_class(e: &rusqlite::Error) -> Unusable {
    use rusqlite::ErrorCode;
    match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => Unusable::Busy,
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => Unusable::Corrupt,
        _ => Unusable::Other,
    }
}

fn classify(e: &StoreError) -> Unusable {
    match e {
        // A newer gpuplan's database is sound: an older build beside a newer
        // app must refuse it, never hide the student's plans and bills.
        StoreError::Corrupt { .. } | StoreError::BadValue { .. } => Unusable::Corrupt,
        StoreError::Busy { .. } => Unusable::Busy,
        StoreError::Sqlite(s) => sqlite_class(s),
        StoreError::Migration(rusqlite_migration::Error::RusqliteError { err, .. }) => {
            sqlite_class(err)
        }
        _ => Unusable::Other,
    }
}

/// `path` with `.db.unreadable-TAG` (then `-2`, `-3`, ...) as its extension:
/// the first name no file has, so a second set-aside never overwrites the first.
fn free_aside_name(path: &Path, tag: &str) -> std::path::PathBuf {
    let mut n: u32 = 1;
    loop {
        let suffix = if n == 1 {
            String::new()
        } else {
            format!("-{n}")
        };
        let candidate = path.with_extension(format!("db.unreadable-{tag}{suffix}"));
        let taken = candidate.exists()
            || std::path::PathBuf::from(format!("{}-wal", candidate.display())).exists();
        if !taken || n == u32::MAX {
            return candidate;
        }
        n = n.saturating_add(1);
    }
}

/// The schema, one migration per version. Never edit a released migration:
/// add a new one.
fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        // v1: plans and settings.
        M::up(
            "CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE plans (
                 id INTEGER PRIMARY KEY,
                 name TEXT NOT NULL,
                 body TEXT NOT NULL,
                 created_at TEXT NOT NULL,
                 updated_at TEXT NOT NULL
             );",
        ),
        // v2: the ledger of real bills, price overrides and course packs.
        M::up(
            "CREATE TABLE ledger (
                 id INTEGER PRIMARY KEY,
                 date TEXT NOT NULL,
                 platform TEXT NOT NULL,
                 gpu TEXT NOT NULL,
                 hours TEXT NOT NULL,
                 cost TEXT NOT NULL,
                 problems TEXT NOT NULL DEFAULT '',
                 plan_id INTEGER REFERENCES plans(id) ON DELETE SET NULL,
                 planned_cost TEXT,
                 created_at TEXT NOT NULL
             );
             CREATE INDEX ledger_by_date ON ledger(date);
             CREATE TABLE price_overrides (
                 platform TEXT NOT NULL,
                 gpu TEXT NOT NULL,
                 price TEXT NOT NULL,
                 note TEXT NOT NULL DEFAULT '',
                 PRIMARY KEY (platform, gpu)
             );
             CREATE TABLE packs (
                 id INTEGER PRIMARY KEY,
                 name TEXT NOT NULL UNIQUE,
                 body TEXT NOT NULL,
                 imported_at TEXT NOT NULL
             );",
        ),
        // v3: saved plans are the documented plan TOML (`format = 'plan-toml'`);
        // rows saved before keep their app JSON until the use-case layer
        // converts them. The situation a plan came from is kept beside it.
        M::up(
            "ALTER TABLE plans ADD COLUMN format TEXT NOT NULL DEFAULT 'app-json-v1';
             ALTER TABLE plans ADD COLUMN situation TEXT;",
        ),
        // v4: run reports the kit's wrapper wrote, kept with the bill they
        // were imported as (the JSON as imported, already validated).
        M::up(
            "CREATE TABLE run_reports (
                 ledger_id INTEGER PRIMARY KEY REFERENCES ledger(id) ON DELETE CASCADE,
                 body TEXT NOT NULL,
                 imported_at TEXT NOT NULL
             );",
        ),
        // v5: the anonymised measured run a report gave (the planned job,
        // card, platform and what was measured; JSON owned by the caller),
        // which personal calibration learns from; NULL when the report
        // matched no plan with a model.
        M::up("ALTER TABLE run_reports ADD COLUMN measured_run TEXT;"),
        // v6: a report's identity (a digest of its content, computed by the
        // caller), unique where known, so one run imported twice is one bill.
        // Rows imported before have none until the caller fills it in.
        M::up(
            "ALTER TABLE run_reports ADD COLUMN identity TEXT;
             CREATE UNIQUE INDEX run_reports_identity ON run_reports(identity) WHERE identity IS NOT NULL;",
        ),
        // v7: the day a price override was set, so a bill shows how old the
        // student's own price is; rows set before have none.
        M::up("ALTER TABLE price_overrides ADD COLUMN set_on TEXT;"),
        // v8: a report's identity names the run (its window, run id and
        // part), no longer every byte: the caller computes them again for
        // every row (`reports_without_identity`), and a second row of one
        // run keeps none (its bill stays; nothing is deleted).
        M::up("UPDATE run_reports SET identity = NULL;"),
        // v9: a report's window counts as the instants it names (UTC), not
        // as written, so one run written with two offsets is one bill; the
        // identities are computed again as for v8.
        M::up("UPDATE run_reports SET identity = NULL;"),
        // v10: a plan's and a bill's id is never given again once deleted
        // (AUTOINCREMENT), so "plan #2" in a student's notes or a handout
        // never comes to mean another plan, and undoing a delete gets its
        // own id back. SQLite cannot add AUTOINCREMENT to a table, so both
        // are rebuilt (foreign keys are off while migrating: dropping the
        // old table must not unlink or cascade anything; checked after).
        M::up(
            "CREATE TABLE plans_v10 (
                 id INTEGER PRIMARY KEY AUTOINCREMENT,
                 name TEXT NOT NULL,
                 body TEXT NOT NULL,
                 created_at TEXT NOT NULL,
                 updated_at TEXT NOT NULL,
                 format TEXT NOT NULL DEFAULT 'app-json-v1',
                 situation TEXT
             );
             INSERT INTO plans_v10 (id, name, body, created_at, updated_at, format, situation)
                 SELECT id, name, body, created_at, updated_at, format, situation FROM plans;
             DROP TABLE plans;
             ALTER TABLE plans_v10 RENAME TO plans;
             CREATE TABLE ledger_v10 (
                 id INTEGER PRIMARY KEY AUTOINCREMENT,
                 date TEXT NOT NULL,
                 platform TEXT NOT NULL,
                 gpu TEXT NOT NULL,
                 hours TEXT NOT NULL,
                 cost TEXT NOT NULL,
                 problems TEXT NOT NULL DEFAULT '',
                 plan_id INTEGER REFERENCES plans(id) ON DELETE SET NULL,
                 planned_cost TEXT,
                 created_at TEXT NOT NULL
             );
             INSERT INTO ledger_v10 (id, date, platform, gpu, hours, cost, problems, plan_id, planned_cost, created_at)
                 SELECT id, date, platform, gpu, hours, cost, problems, plan_id, planned_cost, created_at FROM ledger;
             DROP TABLE ledger;
             ALTER TABLE ledger_v10 RENAME TO ledger;
             CREATE INDEX ledger_by_date ON ledger(date);",
        )
        .foreign_key_check(),
        // v11: a report's identity no longer holds its plan and job names,
        // wall time or exit status, so a report renamed by hand is the
        // bill it already is; the identities are computed again as for v8.
        M::up("UPDATE run_reports SET identity = NULL;"),
    ])
}

/// Latest schema version this build writes.
pub const SCHEMA_VERSION: i64 = 11;

/// A price the user set for a GPU on a platform.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredOverride {
    /// Platform id.
    pub platform: String,
    /// GPU id.
    pub gpu: String,
    /// CNY per GPU-hour.
    pub price: Decimal,
    /// Where or when the user saw it.
    pub note: String,
    /// The day it was set (`YYYY-MM-DD`), when known.
    pub set_on: Option<String>,
}

/// A bill imported from a run report, for [`Store::add_reported_bills`].
#[derive(Debug, Clone, Copy)]
pub struct ReportedBill<'a> {
    /// The ledger entry.
    pub entry: &'a LedgerEntry,
    /// The report's JSON as imported.
    pub report: &'a str,
    /// The anonymised measured run (JSON owned by the caller), if any.
    pub measured_run: Option<&'a str>,
    /// The report's identity (see migration v6).
    pub identity: &'a str,
}

/// The format of a saved plan's body written by this build: the plan file
/// format of `docs/plans.md`.
pub const PLAN_FORMAT_TOML: &str = "plan-toml";

/// A saved plan; its body's format is owned by the caller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedPlan {
    /// Row id.
    pub id: i64,
    /// Name shown in lists.
    pub name: String,
    /// The plan's text.
    pub body: String,
    /// Its format: [`PLAN_FORMAT_TOML`], or `app-json-v1` for rows saved by
    /// the first app release.
    pub format: String,
    /// The situation the plan came from (JSON), if the app kept one.
    pub situation: Option<String>,
    /// When first saved.
    pub created_at: String,
    /// When last saved.
    pub updated_at: String,
}

/// A real bill in the ledger (seed 000's closing advice: write down every order).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LedgerEntry {
    /// Row id (0 for a new entry).
    pub id: i64,
    /// Day of the bill, YYYY-MM-DD.
    pub date: String,
    /// Platform id.
    pub platform: String,
    /// GPU id.
    pub gpu: String,
    /// Hours billed.
    pub hours: Decimal,
    /// CNY paid.
    pub cost: Decimal,
    /// What went wrong, if anything.
    pub problems: String,
    /// The saved plan it belongs to.
    pub plan_id: Option<i64>,
    /// What the plan said it would cost, for plan-versus-actual.
    pub planned_cost: Option<Decimal>,
}

/// An imported course pack as stored (validated again when loaded).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredPack {
    /// Course name.
    pub name: String,
    /// The pack file's text.
    pub body: String,
    /// When imported.
    pub imported_at: String,
}

/// Spend per month.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MonthSpend {
    /// YYYY-MM.
    pub month: String,
    /// CNY.
    pub cost: Decimal,
    /// Entries.
    pub entries: i64,
}

/// An open database.
pub struct Store {
    conn: Connection,
    /// Set when the store only browses (its file could not be opened):
    /// every write is refused with this reason instead of being lost.
    read_only: Option<String>,
}

/// Every saved plan, most recently saved first (read by [`saved_plan`]).
const PLANS_NEWEST_FIRST: &str = "SELECT id, name, body, format, situation, created_at, updated_at FROM plans ORDER BY updated_at DESC, id DESC";

fn saved_plan(r: &rusqlite::Row<'_>) -> rusqlite::Result<SavedPlan> {
    Ok(SavedPlan {
        id: r.get(0)?,
        name: r.get(1)?,
        body: r.get(2)?,
        format: r.get(3)?,
        situation: r.get(4)?,
        created_at: r.get(5)?,
        updated_at: r.get(6)?,
    })
}

fn dec(what: &str, s: &str) -> Result<Decimal, StoreError> {
    s.parse().map_err(|_| StoreError::BadValue {
        what: what.to_owned(),
        value: format!("{s:?}"),
    })
}

/// `path` as an SQLite URI opened immutable: `%`, `?` and `#` escaped, a
/// Windows path's backslashes as slashes after a leading slash.
fn immutable_uri(path: &Path) -> String {
    let mut p = path
        .display()
        .to_string()
        .replace('%', "%25")
        .replace('?', "%3f")
        .replace('#', "%23");
    if cfg!(windows) {
        p = format!("/{}", p.replace('\\', "/"));
    }
    format!("file:{p}?immutable=1")
}

impl Store {
    /// Opens (creating if needed) and migrates the database at `path`.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        Self::open_file(path, BUSY_WAIT)
    }

    /// An in-memory database (tests).
    pub fn open_in_memory() -> Result<Self, StoreError> {
        Self::init(Connection::open_in_memory()?, BUSY_WAIT)
    }

    /// An empty in-memory store that refuses every write with `reason`: the
    /// app browses its bundled data when the user's database cannot be
    /// opened, and says so, but never pretends to save.
    pub fn browse_without_saving(reason: &str) -> Result<Self, StoreError> {
        let mut s = Self::open_in_memory()?;
        s.read_only = Some(reason.to_owned());
        Ok(s)
    }

    /// Why writes are refused, when they are (see
    /// [`Store::browse_without_saving`]).
    pub fn read_only_reason(&self) -> Option<&str> {
        self.read_only.as_deref()
    }

    /// Opens the file under the first-use lock (creation and migration by
    /// one process at a time), then lets it go: ordinary reads and writes
    /// are serialised by SQLite itself.
    fn open_file(path: &Path, wait: std::time::Duration) -> Result<Self, StoreError> {
        if path.is_dir() {
            return Err(StoreError::Unwritable {
                path: path.display().to_string(),
                reason: "a folder is where the database file should be".into(),
            });
        }
        let _first_use = FirstUseLock::acquire(path, FIRST_USE_WAIT.max(wait))?;
        let unwritable = |e: &dyn std::fmt::Display| StoreError::Unwritable {
            path: path.display().to_string(),
            reason: e.to_string(),
        };
        let conn = Connection::open(path).map_err(|e| unwritable(&e))?;
        // A file SQLite cannot write (read-only, in a read-only folder, on
        // a full or failing disk) fails on the first pragma or migration:
        // say which file and why, not a bare SQL error.
        let e = match Self::init(conn, wait) {
            Ok(store) => return Ok(store),
            Err(e) => match sqlite_cause(&e) {
                Some(s) if cannot_write(s) => unwritable(&sqlite_reason(s)),
                _ => e,
            },
        };
        // What cannot be written can often still be read (a full disk): the
        // student's plans, bills and prices stay in view, and every write
        // is refused with the reason.
        if let StoreError::Unwritable { reason, .. } = &e {
            if let Ok(store) = Self::open_to_read(path, reason) {
                return Ok(store);
            }
        }
        Err(e)
    }

    /// The database at `path`, read without writing anything beside it
    /// (SQLite's `immutable`: no `-shm` file, no locks), for when it cannot
    /// be written; every write is refused with `reason`. Only a file of
    /// this schema with nothing left in its write-ahead log: the log's
    /// last commits would otherwise be missing from what is shown.
    pub fn open_to_read(path: &Path, reason: &str) -> Result<Self, StoreError> {
        let wal = std::path::PathBuf::from(format!("{}-wal", path.display()));
        if std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0) || !path.is_file() {
            return Err(StoreError::ReadOnly {
                reason: reason.to_owned(),
            });
        }
        let conn = Connection::open_with_flags(
            immutable_uri(path),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI,
        )?;
        let found: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
        if found != SCHEMA_VERSION {
            return Err(StoreError::ReadOnly {
                reason: reason.to_owned(),
            });
        }
        Ok(Self {
            conn,
            read_only: Some(reason.to_owned()),
        })
    }

    /// Opens the database at `path`; if it cannot be used (not a database,
    /// or structurally broken), renames it (and its WAL files) aside under a
    /// name no other set-aside file has, never deleting it, and starts a
    /// fresh one. A database written by a newer gpuplan, one that is merely
    /// busy (locked by another process for longer than the wait) or
    /// unreadable for another reason (permissions) is left alone and the
    /// error returned. Returns the store and, when something
    /// was set aside, the path of the copy (the caller tells the user).
    pub fn open_or_set_aside(path: &Path, tag: &str) -> Result<(Self, Option<String>), StoreError> {
        Self::open_or_set_aside_waiting(path, tag, BUSY_WAIT)
    }

    /// [`Store::open_or_set_aside`] with the time to wait for a lock.
    pub fn open_or_set_aside_waiting(
        path: &Path,
        tag: &str,
        wait: std::time::Duration,
    ) -> Result<(Self, Option<String>), StoreError> {
        let e = match Self::open_file(path, wait) {
            Ok(s) => return Ok((s, None)),
            Err(e) => e,
        };
        match classify(&e) {
            Unusable::Busy => {
                return Err(StoreError::Busy {
                    waited_s: wait.as_secs(),
                })
            }
            Unusable::Other => return Err(e),
            Unusable::Corrupt => {}
        }
        let aside = free_aside_name(path, tag);
        std::fs::rename(path, &aside).map_err(|io| StoreError::Corrupt {
            what: "database file".into(),
            detail: format!("{e}; and it could not be set aside: {io}"),
        })?;
        for ext in ["-wal", "-shm"] {
            let from = std::path::PathBuf::from(format!("{}{ext}", path.display()));
            if from.exists() {
                let _ = std::fs::rename(&from, format!("{}{ext}", aside.display()));
            }
        }
        let fresh = Self::open_file(path, wait)?;
        Ok((fresh, Some(aside.display().to_string())))
    }

    fn init(mut conn: Connection, wait: std::time::Duration) -> Result<Self, StoreError> {
        // The wait is set first, so every statement below waits for a lock.
        conn.busy_timeout(wait)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        // Foreign keys are turned on after migrating: a migration that
        // rebuilds a table (v10) must not unlink or cascade on its drop.
        conn.pragma_update(None, "foreign_keys", "OFF")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        let found: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
        if found > SCHEMA_VERSION {
            return Err(StoreError::TooNew {
                found,
                known: SCHEMA_VERSION,
            });
        }
        // A structurally broken file must not be migrated (or trusted).
        let check: String = conn.pragma_query_value(None, "quick_check", |r| r.get(0))?;
        if check != "ok" {
            return Err(StoreError::Corrupt {
                what: "database".into(),
                detail: check,
            });
        }
        if found > 0 && found < SCHEMA_VERSION {
            // Back up before migrating: SQLite's online backup copies every
            // page, header (and so the schema version) included.
            if let Some(file) = conn
                .path()
                .filter(|p| !p.is_empty())
                .map(std::path::PathBuf::from)
            {
                let backup = file.with_extension(format!("db.before-v{SCHEMA_VERSION}"));
                if !backup.exists() {
                    let mut dst = Connection::open(&backup)?;
                    rusqlite::backup::Backup::new(&conn, &mut dst)?.run_to_completion(
                        256,
                        std::time::Duration::ZERO,
                        None,
                    )?;
                }
            }
        }
        migrations().to_latest(&mut conn)?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        Ok(Self {
            conn,
            read_only: None,
        })
    }

    /// The schema version in the file.
    pub fn schema_version(&self) -> Result<i64, StoreError> {
        Ok(self
            .conn
            .pragma_query_value(None, "user_version", |r| r.get(0))?)
    }

    /// `PRAGMA integrity_check` is `ok`.
    pub fn integrity_ok(&self) -> Result<bool, StoreError> {
        let r: String = self
            .conn
            .pragma_query_value(None, "integrity_check", |r| r.get(0))?;
        Ok(r == "ok")
    }

    /// One write, in one transaction. It starts IMMEDIATE (takes the write
    /// lock first, waiting up to the busy time): a deferred transaction that
    /// read first could not upgrade while another process writes, and would
    /// fail at once instead of waiting its turn.
    fn write<T>(
        &mut self,
        f: impl FnOnce(&Transaction<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        if let Some(reason) = &self.read_only {
            return Err(StoreError::ReadOnly {
                reason: reason.clone(),
            });
        }
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let out = f(&tx)?;
        tx.commit()?;
        Ok(out)
    }

    /// Saves a new plan in the plan TOML format; returns its id.
    pub fn save_plan(
        &mut self,
        name: &str,
        body: &str,
        situation: Option<&str>,
        now: &str,
    ) -> Result<i64, StoreError> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO plans (name, body, format, situation, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
                params![name, body, PLAN_FORMAT_TOML, situation, now],
            )?;
            Ok(tx.last_insert_rowid())
        })
    }

    /// Saves a new plan unless a saved one is the same (as `same` judges a
    /// row, newest first); returns the id and whether it was there already.
    /// The look and the insert are one write transaction, so two processes
    /// importing one file at once save it once.
    pub fn save_plan_once(
        &mut self,
        name: &str,
        body: &str,
        now: &str,
        same: impl Fn(&SavedPlan) -> bool,
    ) -> Result<(i64, bool), StoreError> {
        self.write(|tx| {
            let mut st = tx.prepare(PLANS_NEWEST_FIRST)?;
            let rows = st.query_map([], saved_plan)?;
            for row in rows {
                let row = row?;
                if same(&row) {
                    return Ok((row.id, true));
                }
            }
            tx.execute(
                "INSERT INTO plans (name, body, format, situation, created_at, updated_at) VALUES (?1, ?2, ?3, NULL, ?4, ?4)",
                params![name, body, PLAN_FORMAT_TOML, now],
            )?;
            Ok((tx.last_insert_rowid(), false))
        })
    }

    /// Replaces a saved plan's name, body and situation (the body in the plan
    /// TOML format).
    pub fn update_plan(
        &mut self,
        id: i64,
        name: &str,
        body: &str,
        situation: Option<&str>,
        now: &str,
    ) -> Result<(), StoreError> {
        self.write(|tx| {
            let n = tx.execute(
                "UPDATE plans SET name = ?2, body = ?3, format = ?4, situation = ?5, updated_at = ?6 WHERE id = ?1",
                params![id, name, body, PLAN_FORMAT_TOML, situation, now],
            )?;
            if n == 0 {
                return Err(StoreError::NotFound { what: "plan", id });
            }
            Ok(())
        })
    }

    /// All saved plans, most recently saved first.
    pub fn list_plans(&self) -> Result<Vec<SavedPlan>, StoreError> {
        let mut st = self.conn.prepare(PLANS_NEWEST_FIRST)?;
        let rows = st.query_map([], saved_plan)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// One saved plan.
    pub fn get_plan(&self, id: i64) -> Result<SavedPlan, StoreError> {
        self.conn
            .query_row(
                "SELECT id, name, body, format, situation, created_at, updated_at FROM plans WHERE id = ?1",
                [id],
                saved_plan,
            )
            .optional()?
            .ok_or(StoreError::NotFound { what: "plan", id })
    }

    /// Rewrites a plan saved in an older format as plan TOML, keeping its
    /// name and dates (the use-case layer converts the body).
    pub fn convert_plan(&mut self, id: i64, body: &str) -> Result<(), StoreError> {
        self.write(|tx| {
            tx.execute(
                "UPDATE plans SET body = ?2, format = ?3 WHERE id = ?1",
                params![id, body, PLAN_FORMAT_TOML],
            )?;
            Ok(())
        })
    }

    /// Sets the format a plan's body is in (tests and migration tooling that
    /// recreate rows an older release wrote).
    pub fn mark_plan_format(&mut self, id: i64, format: &str) -> Result<(), StoreError> {
        self.write(|tx| {
            tx.execute(
                "UPDATE plans SET format = ?2 WHERE id = ?1",
                params![id, format],
            )?;
            Ok(())
        })
    }

    /// A number that changes whenever another connection commits: the app
    /// re-reads overrides and packs a CLI wrote while it was open.
    pub fn data_version(&self) -> Result<i64, StoreError> {
        Ok(self
            .conn
            .pragma_query_value(None, "data_version", |r| r.get(0))?)
    }

    /// Deletes a saved plan (ledger entries keep their data, unlinked) and
    /// returns what [`Store::restore_plan`] needs to put it back as it was:
    /// the row and the ledger entries that named it. None when there was no
    /// such plan.
    pub fn delete_plan(&mut self, id: i64) -> Result<Option<(SavedPlan, Vec<i64>)>, StoreError> {
        self.write(|tx| {
            let row = tx
                .query_row(
                    "SELECT id, name, body, format, situation, created_at, updated_at FROM plans WHERE id = ?1",
                    [id],
                    saved_plan,
                )
                .optional()?;
            let Some(row) = row else {
                return Ok(None);
            };
            let mut st = tx.prepare("SELECT id FROM ledger WHERE plan_id = ?1 ORDER BY id")?;
            let linked = st
                .query_map([id], |r| r.get::<_, i64>(0))?
                .collect::<Result<Vec<_>, _>>()?;
            drop(st);
            tx.execute("DELETE FROM plans WHERE id = ?1", [id])?;
            Ok(Some((row, linked)))
        })
    }

    /// Puts a deleted plan back under its own id (a new one if that id has
    /// been taken since) and links again the ledger entries that named it
    /// and name no other plan now; returns the id.
    pub fn restore_plan(&mut self, plan: &SavedPlan, linked: &[i64]) -> Result<i64, StoreError> {
        self.write(|tx| {
            let taken: bool = tx
                .query_row("SELECT EXISTS(SELECT 1 FROM plans WHERE id = ?1)", [plan.id], |r| r.get(0))?;
            if taken {
                tx.execute(
                    "INSERT INTO plans (name, body, format, situation, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    params![plan.name, plan.body, plan.format, plan.situation, plan.created_at, plan.updated_at],
                )?;
            } else {
                tx.execute(
                    "INSERT INTO plans (id, name, body, format, situation, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    params![plan.id, plan.name, plan.body, plan.format, plan.situation, plan.created_at, plan.updated_at],
                )?;
            }
            let id = tx.last_insert_rowid();
            for l in linked {
                tx.execute(
                    "UPDATE ledger SET plan_id = ?1 WHERE id = ?2 AND plan_id IS NULL",
                    params![id, l],
                )?;
            }
            Ok(id)
        })
    }

    /// Deletes a ledger entry; whether there was one.
    pub fn delete_ledger(&mut self, id: i64) -> Result<bool, StoreError> {
        self.write(|tx| Ok(tx.execute("DELETE FROM ledger WHERE id = ?1", [id])? > 0))
    }

    /// Adds a ledger entry; returns its id.
    pub fn add_ledger(&mut self, e: &LedgerEntry, now: &str) -> Result<i64, StoreError> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO ledger (date, platform, gpu, hours, cost, problems, plan_id, planned_cost, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![e.date, e.platform, e.gpu, e.hours.to_string(), e.cost.to_string(), e.problems, e.plan_id, e.planned_cost.map(|d| d.to_string()), now],
            )?;
            Ok(tx.last_insert_rowid())
        })
    }

    /// Adds bills imported from run reports, all in one transaction (all or
    /// none); returns, in order, each bill's id and whether it was added.
    /// A report whose identity is already in the ledger (another process
    /// imported it since the caller looked) adds nothing and answers with
    /// the bill it already is: the check is inside the write transaction,
    /// so two imports at once cannot both add it.
    pub fn add_reported_bills(
        &mut self,
        bills: &[ReportedBill<'_>],
        now: &str,
    ) -> Result<Vec<(i64, bool)>, StoreError> {
        self.write(|tx| {
            let mut ids = Vec::with_capacity(bills.len());
            for b in bills {
                let known: Option<i64> = tx
                    .query_row(
                        "SELECT ledger_id FROM run_reports WHERE identity = ?1",
                        [b.identity],
                        |r| r.get(0),
                    )
                    .optional()?;
                if let Some(id) = known {
                    ids.push((id, false));
                    continue;
                }
                let e = b.entry;
                tx.execute(
                    "INSERT INTO ledger (date, platform, gpu, hours, cost, problems, plan_id, planned_cost, created_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                    params![e.date, e.platform, e.gpu, e.hours.to_string(), e.cost.to_string(), e.problems, e.plan_id, e.planned_cost.map(|d| d.to_string()), now],
                )?;
                let id = tx.last_insert_rowid();
                tx.execute(
                    "INSERT INTO run_reports (ledger_id, body, measured_run, identity, imported_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![id, b.report, b.measured_run, b.identity, now],
                )?;
                ids.push((id, true));
            }
            Ok(ids)
        })
    }

    /// The ledger entry whose report has this identity, if one was imported.
    pub fn bill_of_report(&self, identity: &str) -> Result<Option<i64>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT ledger_id FROM run_reports WHERE identity = ?1",
                [identity],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// The reports of one part of one run (its `run_id` and `part`, a
    /// report without a part being part 1): (ledger id, JSON), oldest
    /// first. The caller tells a second report of the part from a run that
    /// reused the id.
    pub fn reports_of_run_part(
        &self,
        run_id: &str,
        part: u32,
    ) -> Result<Vec<(i64, String)>, StoreError> {
        let mut st = self.conn.prepare_cached(
            "SELECT ledger_id, body FROM run_reports
             WHERE json_valid(body) AND json_extract(body, '$.run_id') = ?1
               AND COALESCE(json_extract(body, '$.part'), 1) = ?2
             ORDER BY ledger_id",
        )?;
        let rows = st.query_map(params![run_id, part], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<Vec<(i64, String)>, _>>()?)
    }

    /// Reports imported before identities were kept: (ledger id, JSON).
    pub fn reports_without_identity(&self) -> Result<Vec<(i64, String)>, StoreError> {
        let mut st = self.conn.prepare(
            "SELECT ledger_id, body FROM run_reports WHERE identity IS NULL ORDER BY ledger_id",
        )?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Records a report's identity; false (and nothing changed) when another
    /// report already has it (a run imported twice before identities).
    pub fn set_report_identity(
        &mut self,
        ledger_id: i64,
        identity: &str,
    ) -> Result<bool, StoreError> {
        self.write(|tx| {
            let taken: bool = tx
                .query_row(
                    "SELECT 1 FROM run_reports WHERE identity = ?1",
                    [identity],
                    |_| Ok(true),
                )
                .optional()?
                .unwrap_or(false);
            if taken {
                return Ok(false);
            }
            tx.execute(
                "UPDATE run_reports SET identity = ?2 WHERE ledger_id = ?1",
                params![ledger_id, identity],
            )?;
            Ok(true)
        })
    }

    /// The run report stored with a ledger entry, if it came from one.
    pub fn run_report(&self, ledger_id: i64) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT body FROM run_reports WHERE ledger_id = ?1",
                [ledger_id],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// The measured run stored with a ledger entry's report, if any.
    pub fn measured_run(&self, ledger_id: i64) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT measured_run FROM run_reports WHERE ledger_id = ?1",
                [ledger_id],
                |r| r.get::<_, Option<String>>(0),
            )
            .optional()?
            .flatten())
    }

    /// The measured runs of every imported report that had one, oldest
    /// first (their JSON, as stored).
    pub fn measured_runs(&self) -> Result<Vec<String>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT measured_run FROM run_reports WHERE measured_run IS NOT NULL ORDER BY ledger_id",
        )?;
        let rows = stmt.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<Result<Vec<String>, _>>()?)
    }

    /// Ledger entries, newest first.
    pub fn list_ledger(&self) -> Result<Vec<LedgerEntry>, StoreError> {
        self.ledger_query("SELECT id, date, platform, gpu, hours, cost, problems, plan_id, planned_cost FROM ledger ORDER BY date DESC, id DESC", None)
    }

    /// The newest `limit` ledger entries (the screen pages; totals come from
    /// [`Store::spend_by_month`]).
    pub fn ledger_page(&self, limit: u32) -> Result<Vec<LedgerEntry>, StoreError> {
        self.ledger_query("SELECT id, date, platform, gpu, hours, cost, problems, plan_id, planned_cost FROM ledger ORDER BY date DESC, id DESC LIMIT ?1", Some(i64::from(limit)))
    }

    /// One ledger entry, if there is one with this id.
    pub fn ledger_entry(&self, id: i64) -> Result<Option<LedgerEntry>, StoreError> {
        Ok(self
            .ledger_query("SELECT id, date, platform, gpu, hours, cost, problems, plan_id, planned_cost FROM ledger WHERE id = ?1", Some(id))?
            .into_iter()
            .next())
    }

    /// The ids of the ledger entries imported from a run report.
    pub fn reported_ledger_ids(&self) -> Result<Vec<i64>, StoreError> {
        let mut st = self
            .conn
            .prepare_cached("SELECT ledger_id FROM run_reports ORDER BY ledger_id")?;
        let rows = st.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<Result<Vec<i64>, _>>()?)
    }

    /// Ledger rows of `sql`, whose one parameter (a limit or an id), if
    /// any, is `param`.
    fn ledger_query(&self, sql: &str, param: Option<i64>) -> Result<Vec<LedgerEntry>, StoreError> {
        type Raw = (
            i64,
            String,
            String,
            String,
            String,
            String,
            String,
            Option<i64>,
            Option<String>,
        );
        let mut st = self.conn.prepare_cached(sql)?;
        let map = |r: &rusqlite::Row<'_>| -> rusqlite::Result<Raw> {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
                r.get(7)?,
                r.get(8)?,
            ))
        };
        let rows: Vec<Raw> = match param {
            Some(n) => st.query_map([n], map)?.collect::<Result<_, _>>()?,
            None => st.query_map([], map)?.collect::<Result<_, _>>()?,
        };
        rows.into_iter()
            .map(
                |(id, date, platform, gpu, hours, cost, problems, plan_id, planned)| {
                    Ok(LedgerEntry {
                        id,
                        date,
                        platform,
                        gpu,
                        // The bill is named, so a hand-edited row can be
                        // found and deleted (`gpuplan ledger delete ID`).
                        hours: dec(&format!("ledger[{id}].hours"), &hours)?,
                        cost: dec(&format!("ledger[{id}].cost"), &cost)?,
                        problems,
                        plan_id,
                        planned_cost: planned
                            .map(|p| dec(&format!("ledger[{id}].planned_cost"), &p))
                            .transpose()?,
                    })
                },
            )
            .collect()
    }

    /// Spend per month, oldest first. Amounts are exact: summed as decimals
    /// in Rust, never as SQLite floats.
    pub fn spend_by_month(&self) -> Result<Vec<MonthSpend>, StoreError> {
        let mut totals: std::collections::BTreeMap<String, (Decimal, i64)> = Default::default();
        let mut st = self
            .conn
            .prepare_cached("SELECT substr(date, 1, 7), cost FROM ledger")?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            let month: String = r.get(0)?;
            let cost: String = r.get(1)?;
            let t = totals.entry(month).or_insert((Decimal::ZERO, 0));
            t.0 =
                t.0.checked_add(dec("ledger.cost", &cost)?)
                    .ok_or_else(|| StoreError::Corrupt {
                        what: "ledger.cost".into(),
                        detail: "the month's total overflows".into(),
                    })?;
            t.1 = t.1.saturating_add(1);
        }
        Ok(totals
            .into_iter()
            .map(|(month, (cost, entries))| MonthSpend {
                month,
                cost,
                entries,
            })
            .collect())
    }

    /// Reads a setting.
    pub fn setting(&self, key: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn
            .query_row("SELECT value FROM settings WHERE key = ?1", [key], |r| {
                r.get(0)
            })
            .optional()?)
    }

    /// Writes a setting.
    pub fn set_setting(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        self.write(|tx| {
            tx.execute("INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value", params![key, value])?;
            Ok(())
        })
    }

    /// Sets the user's price for a GPU on a platform.
    pub fn set_override(&mut self, o: &StoredOverride) -> Result<(), StoreError> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO price_overrides (platform, gpu, price, note, set_on) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT(platform, gpu) DO UPDATE SET price = excluded.price, note = excluded.note,
                     set_on = excluded.set_on",
                params![o.platform, o.gpu, o.price.to_string(), o.note, o.set_on],
            )?;
            Ok(())
        })
    }

    /// Removes every override.
    pub fn clear_overrides(&mut self) -> Result<(), StoreError> {
        self.write(|tx| {
            tx.execute("DELETE FROM price_overrides", [])?;
            Ok(())
        })
    }

    /// All overrides, by platform and GPU.
    pub fn overrides(&self) -> Result<Vec<StoredOverride>, StoreError> {
        let mut st = self.conn.prepare(
            "SELECT platform, gpu, price, note, set_on FROM price_overrides ORDER BY platform, gpu",
        )?;
        let rows = st.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, Option<String>>(4)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (platform, gpu, price, note, set_on) = row?;
            out.push(StoredOverride {
                platform,
                gpu,
                price: dec("price_overrides.price", &price)?,
                note,
                set_on,
            });
        }
        Ok(out)
    }

    /// Stores an imported pack (replacing one of the same name), unless
    /// `max` other packs are stored already: then `Ok(None)` and nothing is
    /// written. The count is taken inside the write transaction, so two
    /// imports at once cannot both pass it.
    pub fn save_pack(
        &mut self,
        name: &str,
        body: &str,
        now: &str,
        max: usize,
    ) -> Result<Option<i64>, StoreError> {
        self.write(|tx| {
            let others: i64 =
                tx.query_row("SELECT COUNT(*) FROM packs WHERE name <> ?1", [name], |r| {
                    r.get(0)
                })?;
            if usize::try_from(others).unwrap_or(usize::MAX) >= max {
                return Ok(None);
            }
            // A pack imported again is the newest import: it is written as a
            // new row (a larger id), so import order never depends on the
            // clock's resolution (three imports in one second).
            tx.execute("DELETE FROM packs WHERE name = ?1", [name])?;
            tx.execute(
                "INSERT INTO packs (name, body, imported_at) VALUES (?1, ?2, ?3)",
                params![name, body, now],
            )?;
            Ok(Some(tx.query_row(
                "SELECT id FROM packs WHERE name = ?1",
                [name],
                |r| r.get(0),
            )?))
        })
    }

    /// Imported packs, oldest import first.
    pub fn packs(&self) -> Result<Vec<StoredPack>, StoreError> {
        let mut st = self
            .conn
            .prepare("SELECT name, body, imported_at FROM packs ORDER BY id")?;
        let rows = st.query_map([], |r| {
            Ok(StoredPack {
                name: r.get(0)?,
                body: r.get(1)?,
                imported_at: r.get(2)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Removes an imported pack; false when there was none of that name.
    pub fn delete_pack(&mut self, name: &str) -> Result<bool, StoreError> {
        self.write(|tx| Ok(tx.execute("DELETE FROM packs WHERE name = ?1", [name])? > 0))
    }
}

/// Whether SQLite refused because the file or its folder cannot be written.
/// The SQLite error under a store error, a migration's included.
fn sqlite_cause(e: &StoreError) -> Option<&rusqlite::Error> {
    match e {
        StoreError::Sqlite(s) => Some(s),
        StoreError::Migration(rusqlite_migration::Error::RusqliteError { err, .. }) => Some(err),
        _ => None,
    }
}

/// Whether SQLite could not write the file (read-only, not openable, a
/// full disk, a failing one): the file is named, never set aside.
fn cannot_write(e: &rusqlite::Error) -> bool {
    use rusqlite::ErrorCode as C;
    matches!(
        e.sqlite_error_code(),
        Some(C::ReadOnly | C::CannotOpen | C::DiskFull | C::SystemIoFailure)
    )
}

/// SQLite's own words for an error ("database or disk is full"), without
/// the Rust wrapper's debug form.
fn sqlite_reason(e: &rusqlite::Error) -> String {
    match e {
        rusqlite::Error::SqliteFailure(_, Some(msg)) => msg.clone(),
        rusqlite::Error::SqliteFailure(f, None) => f.to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(date: &str, cost: &str) -> LedgerEntry {
        LedgerEntry {
            id: 0,
            date: date.into(),
            platform: "autodl".into(),
            gpu: "rtx3090".into(),
            hours: "6".parse().unwrap_or_default(),
            cost: cost.parse().unwrap_or_default(),
            problems: "forgot to stop".into(),
            plan_id: None,
            planned_cost: Some("16.00".parse().unwrap_or_default()),
        }
    }

    #[test]
    fn migrations_are_valid_and_reach_the_latest_version() {
        assert!(
            migrations().validate().is_ok(),
            "every migration applies to an empty database"
        );
        let s = Store::open_in_memory().expect("open");
        assert_eq!(
            s.schema_version().expect("version"),
            SCHEMA_VERSION,
            "a new database is at the latest version"
        );
    }

    /// A database file at schema `version` holding `rows` (SQL inserts), in
    /// a fresh folder: what an earlier release left behind.
    fn database_at(
        version: usize,
        file: &str,
        rows: &[&str],
    ) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join(file);
        let mut conn = Connection::open(&path).expect("open");
        migrations()
            .to_version(&mut conn, version)
            .expect("the old schema");
        for sql in rows {
            conn.execute(sql, []).expect("insert");
        }
        (dir, path)
    }

    /// The store an earlier database opens as, checked to be at the latest
    /// schema.
    fn upgraded(path: &Path) -> Store {
        let s = Store::open(path).expect("migrates to latest");
        assert_eq!(
            s.schema_version().expect("version"),
            SCHEMA_VERSION,
            "upgraded to the latest schema"
        );
        s
    }

    /// Adds one bill from a report (`identity` as the caller computed it).
    fn one_reported_bill(s: &mut Store, report: &str, run: Option<&str>, identity: &str) -> i64 {
        let e = entry("2026-11-30", "1.39");
        let ids = s
            .add_reported_bills(
                &[ReportedBill {
                    entry: &e,
                    report,
                    measured_run: run,
                    identity,
                }],
                "now",
            )
            .expect("bill, report and run in one transaction");
        ids[0].0
    }

    #[test]
    fn upgrade_to_v10_keeps_links_and_reports_and_never_gives_an_id_again() {
        let (_dir, path) = database_at(
            9,
            "v9.db",
            &[
                "INSERT INTO plans (id, name, body, created_at, updated_at, format) VALUES (1, 'a', 'x', 't', 't', 'plan-toml')",
                "INSERT INTO plans (id, name, body, created_at, updated_at, format) VALUES (2, 'b', 'y', 't', 't', 'plan-toml')",
                "INSERT INTO ledger (id, date, platform, gpu, hours, cost, plan_id, created_at) VALUES (5, '2026-11-01', 'autodl', 'rtx3090', '2', '2.78', 2, 't')",
                "INSERT INTO run_reports (ledger_id, body, measured_run, imported_at, identity) VALUES (5, '{\"a\":1}', NULL, 't', 'r5')",
            ],
        );
        let mut s = upgraded(&path);
        let bills = s.list_ledger().expect("ledger");
        assert_eq!(bills.len(), 1, "the bill survives the rebuild");
        assert_eq!(bills[0].plan_id, Some(2), "still linked to its plan");
        assert_eq!(
            s.run_report(5).expect("read").as_deref(),
            Some("{\"a\":1}"),
            "the report stays with its bill (no cascade on the rebuild)"
        );
        assert_eq!(
            s.reports_without_identity().expect("read"),
            vec![(5, "{\"a\":1}".to_owned())],
            "v11: its identity is computed again by today's rule"
        );
        // The highest plan and bill deleted, then new ones: never their ids.
        s.delete_plan(2).expect("delete").expect("was there");
        assert!(s.delete_ledger(5).expect("delete"), "bill deleted");
        let plan = s.save_plan("c", "z", None, "t").expect("save");
        assert_eq!(plan, 3, "a deleted plan's id is not given to a new plan");
        let bill = s
            .add_ledger(&entry("2026-11-02", "1.00"), "t")
            .expect("add");
        assert_eq!(bill, 6, "a deleted bill's id is not given to a new bill");
        assert!(
            s.run_report(5).expect("read").is_none(),
            "deleting the bill still deletes its report (foreign keys on after migrating)"
        );
    }

    #[test]
    fn upgrade_from_v5_keeps_reports_and_gives_each_an_identity_once() {
        let (_dir, path) = database_at(
            5,
            "v5.db",
            &[
                "INSERT INTO ledger (id, date, platform, gpu, hours, cost, created_at) VALUES (3, '2026-11-01', 'autodl', 'rtx3090', '2', '2.78', 't')",
                "INSERT INTO ledger (id, date, platform, gpu, hours, cost, created_at) VALUES (4, '2026-11-01', 'autodl', 'rtx3090', '2', '2.78', 't')",
                "INSERT INTO run_reports (ledger_id, body, measured_run, imported_at) VALUES (3, '{\"a\":1}', NULL, 't')",
                "INSERT INTO run_reports (ledger_id, body, measured_run, imported_at) VALUES (4, '{\"a\":1}', NULL, 't')",
            ],
        );
        let mut s = upgraded(&path);
        let old = s.reports_without_identity().expect("read");
        assert_eq!(old.len(), 2, "reports from v5 have no identity yet");
        assert!(
            s.set_report_identity(3, "same").expect("set"),
            "the first report takes its identity"
        );
        assert!(
            !s.set_report_identity(4, "same").expect("set"),
            "a second import of the same report cannot take it: it stays as it was"
        );
        assert_eq!(
            s.bill_of_report("same").expect("read"),
            Some(3),
            "the identity finds the first bill"
        );
    }

    #[test]
    fn reported_bills_are_added_all_or_none_and_an_identity_only_once() {
        let mut s = Store::open_in_memory().expect("open");
        let (a, b) = (entry("2026-11-29", "1.00"), entry("2026-11-30", "2.00"));
        let bill = |e, identity| ReportedBill {
            entry: e,
            report: "{}",
            measured_run: None,
            identity,
        };
        let ids = s
            .add_reported_bills(&[bill(&a, "x"), bill(&b, "y")], "now")
            .expect("two bills at once");
        assert_eq!(ids.len(), 2, "both added, ids in order");
        assert!(ids.iter().all(|(_, added)| *added), "both are new");
        let again = s
            .add_reported_bills(&[bill(&a, "z"), bill(&b, "y")], "now")
            .expect("a batch holding a known identity");
        assert!(again[0].1, "the new report is added");
        assert_eq!(
            again[1],
            (ids[1].0, false),
            "the known one (another process imported it meanwhile) answers with its bill and adds nothing"
        );
        assert_eq!(
            s.list_ledger().expect("ledger").len(),
            3,
            "one bill more, not two"
        );
    }

    #[test]
    fn upgrade_to_v8_asks_for_every_identity_again() {
        let (_dir, path) = database_at(
            7,
            "v7.db",
            &[
                "INSERT INTO ledger (id, date, platform, gpu, hours, cost, created_at) VALUES (3, '2026-11-01', 'autodl', 'rtx3090', '2', '2.78', 't')",
                "INSERT INTO run_reports (ledger_id, body, measured_run, identity, imported_at) VALUES (3, '{\"a\":1}', NULL, 'old-digest', 't')",
            ],
        );
        let s = upgraded(&path);
        assert_eq!(
            s.reports_without_identity().expect("read"),
            vec![(3, "{\"a\":1}".to_owned())],
            "the report is kept and its identity is to be computed again by the new rule"
        );
        assert_eq!(
            s.list_ledger().expect("ledger").len(),
            1,
            "its bill is kept"
        );
    }

    #[test]
    fn a_browsing_store_refuses_to_save_instead_of_losing_it() {
        let mut s = Store::browse_without_saving("the folder is read-only").expect("open");
        let err = s
            .add_ledger(&entry("2026-11-30", "1.00"), "now")
            .expect_err("a write must not pretend to succeed");
        assert!(
            matches!(err, StoreError::ReadOnly { .. }) && err.to_string().contains("read-only"),
            "the refusal says why: {err}"
        );
        assert!(
            s.list_ledger().expect("read").is_empty(),
            "nothing was kept"
        );
    }

    #[test]
    fn a_file_sqlite_cannot_write_is_told_apart_from_other_failures() {
        let failure =
            |code: i32| rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), None);
        // (error, read-only, why)
        let cases = [
            (
                failure(rusqlite::ffi::SQLITE_READONLY),
                true,
                "a read-only file or folder",
            ),
            (
                failure(rusqlite::ffi::SQLITE_CANTOPEN),
                true,
                "a folder it cannot create its journal in",
            ),
            (
                failure(rusqlite::ffi::SQLITE_FULL),
                true,
                "a full disk: the file is named, not set aside",
            ),
            (
                failure(rusqlite::ffi::SQLITE_IOERR),
                true,
                "a failing disk: the file is named, not set aside",
            ),
            (
                failure(rusqlite::ffi::SQLITE_CORRUPT),
                false,
                "a broken file is not a permission problem",
            ),
            (
                rusqlite::Error::QueryReturnedNoRows,
                false,
                "not an SQLite failure at all",
            ),
        ];
        for (e, want, why) in cases {
            assert_eq!(super::cannot_write(&e), want, "{why}");
        }
    }

    #[test]
    fn a_database_that_cannot_be_written_is_still_read_and_refuses_writes() {
        // (A full disk makes SQLite fail to create its -shm file; the same
        // file is then read without writing anything beside it.)
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("gpuplan.db");
        {
            let mut s = Store::open(&path).expect("open");
            s.save_plan("kept", "name = \"kept\"", None, "t")
                .expect("save");
        }
        let mut s = Store::open_to_read(&path, "the disk is full").expect("read");
        let plans = s.list_plans().expect("list");
        assert_eq!(plans.len(), 1, "the saved plan is shown");
        let err = s
            .save_plan("new", "name = \"new\"", None, "t")
            .expect_err("refused");
        assert!(
            matches!(&err, StoreError::ReadOnly { reason } if reason == "the disk is full"),
            "a write says why it was not saved: {err}"
        );
        drop(s);
        // Commits still in the write-ahead log would be missing: not read so.
        std::fs::write(dir.path().join("gpuplan.db-wal"), b"not empty").expect("wal");
        assert!(
            Store::open_to_read(&path, "full").is_err(),
            "a log with commits in it is not skipped over"
        );
        // A path with characters a URI reserves reads the same.
        let odd = dir.path().join("a%b#c?d.db");
        std::fs::copy(&path, &odd).expect("copy");
        assert!(
            Store::open_to_read(&odd, "full").is_ok(),
            "% # ? in the path"
        );
    }

    #[test]
    fn a_folder_where_the_file_should_be_is_named_not_worked_around() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("gpuplan.db");
        std::fs::create_dir(&path).expect("a folder in the way");
        let err = Store::open(&path).err().expect("refused");
        assert!(
            matches!(err, StoreError::Unwritable { .. })
                && err.to_string().contains(&path.display().to_string()),
            "the error names the path and the reason: {err}"
        );
    }

    #[test]
    fn twenty_processes_starting_at_once_all_save() {
        // Threads stand in for processes: each opens its own connection to a
        // database that does not exist yet, then writes one bill.
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("gpuplan.db");
        let handles: Vec<_> = (0..20)
            .map(|i| {
                let path = path.clone();
                std::thread::spawn(move || {
                    let mut s = Store::open(&path)?;
                    s.add_ledger(&entry("2026-11-30", &format!("{i}.00")), "now")
                })
            })
            .collect();
        for h in handles {
            h.join().expect("no panic").expect("every first use saves");
        }
        let s = Store::open(&path).expect("reopen");
        assert_eq!(
            s.list_ledger().expect("ledger").len(),
            20,
            "every bill a process was told was saved is in the file"
        );
    }

    #[test]
    fn upgrade_from_v3_keeps_the_ledger_and_stores_run_reports() {
        let (_dir, path) = database_at(
            3,
            "v3.db",
            &[
                "INSERT INTO ledger (date, platform, gpu, hours, cost, created_at) VALUES ('2026-11-01', 'autodl', 'rtx3090', '2', '2.78', 't')",
            ],
        );
        let mut s = upgraded(&path);
        assert_eq!(
            s.list_ledger().expect("ledger").len(),
            1,
            "the v3 bill survives"
        );
        let id = one_reported_bill(&mut s, "{\"schema\":1}", None, "r1");
        assert_eq!(
            s.run_report(id).expect("read").as_deref(),
            Some("{\"schema\":1}"),
            "the report is kept with its bill"
        );
        assert!(s.delete_ledger(id).expect("delete"), "the bill is deleted");
        assert_eq!(
            s.run_report(id).expect("read"),
            None,
            "and its report with it"
        );
        assert!(s.integrity_ok().expect("check"), "integrity holds");
    }

    #[test]
    fn upgrade_from_v4_keeps_reports_and_stores_measured_runs() {
        let (_dir, path) = database_at(
            4,
            "v4.db",
            &[
                "INSERT INTO ledger (id, date, platform, gpu, hours, cost, created_at) VALUES (7, '2026-11-01', 'autodl', 'rtx3090', '2', '2.78', 't')",
                "INSERT INTO run_reports (ledger_id, body, imported_at) VALUES (7, '{}', 't')",
            ],
        );
        let mut s = upgraded(&path);
        assert_eq!(
            s.run_report(7).expect("read").as_deref(),
            Some("{}"),
            "the v4 report survives"
        );
        assert!(
            s.measured_runs().expect("runs").is_empty(),
            "a v4 report has no measured run to learn from"
        );
        let id = one_reported_bill(&mut s, "{}", Some("{\"run\":1}"), "r1");
        assert_eq!(
            s.measured_runs().expect("runs"),
            vec!["{\"run\":1}".to_owned()],
            "the measured run is kept"
        );
        assert!(s.delete_ledger(id).expect("delete"), "deleting the bill");
        assert!(
            s.measured_runs().expect("runs").is_empty(),
            "forgets the run it measured, so calibration stops learning from it"
        );
    }

    #[test]
    fn upgrade_from_v1_keeps_saved_plans() {
        let (_dir, path) = database_at(
            1,
            "v1.db",
            &[
                "INSERT INTO plans (name, body, created_at, updated_at) VALUES ('old', '{}', 't', 't')",
            ],
        );
        let mut s = upgraded(&path);
        assert_eq!(
            s.list_plans().expect("list")[0].name,
            "old",
            "the v1 plan survives the upgrade"
        );
        s.add_ledger(&entry("2026-11-30", "16.5"), "now")
            .expect("ledger works after the upgrade");
        assert!(s.integrity_ok().expect("check"), "integrity holds");
    }

    #[test]
    fn upgrade_from_v2_marks_old_plans_as_app_json() {
        let (_dir, path) = database_at(
            2,
            "v2.db",
            &[
                "INSERT INTO plans (name, body, created_at, updated_at) VALUES ('json', '{}', 't', 't')",
            ],
        );
        let mut s = Store::open(&path).expect("migrates to latest");
        let old = &s.list_plans().expect("list")[0];
        assert_eq!(
            (old.format.as_str(), old.situation.as_deref()),
            ("app-json-v1", None),
            "a v2 plan keeps its body and is marked as the first release's JSON"
        );
        let id = s
            .save_plan("new", "name = \"x\"", Some("{}"), "t")
            .expect("save");
        let new = s.get_plan(id).expect("get");
        assert_eq!(
            (new.format.as_str(), new.situation.as_deref()),
            (PLAN_FORMAT_TOML, Some("{}")),
            "new plans are plan TOML with their situation"
        );
    }

    #[test]
    fn migration_keeps_a_backup_of_the_old_file() {
        let (dir, path) = database_at(
            1,
            "gpuplan.db",
            &[
                "INSERT INTO plans (name, body, created_at, updated_at) VALUES ('kept', '{}', 't', 't')",
            ],
        );
        let _s = Store::open(&path).expect("migrates");
        let backup = dir
            .path()
            .join(format!("gpuplan.db.before-v{SCHEMA_VERSION}"));
        let old = Connection::open(&backup).expect("backup opens");
        let v: i64 = old
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .expect("version");
        assert_eq!(v, 1, "the backup is the v1 database as it was");
        let name: String = old
            .query_row("SELECT name FROM plans", [], |r| r.get(0))
            .expect("row");
        assert_eq!(name, "kept", "with its data");
    }

    #[test]
    fn a_corrupt_database_is_set_aside_and_a_newer_one_left_in_place() {
        let dir = tempfile::tempdir().expect("tmp");
        let garbage = dir.path().join("garbage.db");
        std::fs::write(
            &garbage,
            b"this is not a database at all, just text that a crash might leave",
        )
        .expect("write");
        let (mut s, notice) = Store::open_or_set_aside(&garbage, "test").expect("a usable store");
        assert!(notice.is_some(), "garbage bytes: the user is told");
        let aside = garbage.with_extension("db.unreadable-test");
        assert!(aside.exists(), "garbage bytes: the old file is kept aside");
        s.save_plan("new", "{}", None, "t")
            .expect("the fresh database works");
        // A newer gpuplan's database (an older CLI beside a newer app) is
        // refused and left where it is, its plans and bills visible again
        // to the newer build.
        let newer = dir.path().join("newer.db");
        {
            let conn = Connection::open(&newer).expect("open");
            conn.execute_batch("CREATE TABLE kept (x INTEGER); INSERT INTO kept VALUES (7);")
                .expect("a row");
            conn.pragma_update(None, "user_version", 99).expect("set");
        }
        let got = Store::open_or_set_aside(&newer, "test");
        assert!(
            matches!(got, Err(StoreError::TooNew { found: 99, .. })),
            "a newer schema is refused: {:?}",
            got.err()
        );
        assert!(
            !newer.with_extension("db.unreadable-test").exists(),
            "nothing was set aside"
        );
        let conn = Connection::open(&newer).expect("reopen");
        let x: i64 = conn
            .query_row("SELECT x FROM kept", [], |r| r.get(0))
            .expect("the row is still there");
        assert_eq!(x, 7, "the newer database is untouched");
    }

    #[test]
    fn a_busy_database_is_waited_for_and_never_set_aside() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("busy.db");
        {
            let (mut s, _) = Store::open_or_set_aside(&path, "t").expect("create");
            s.save_plan("kept", "{}", None, "t").expect("a row");
        }
        // Another process holds the write lock (rollback journal, so even a
        // reader must wait) for longer than the wait.
        let holder = Connection::open(&path).expect("open");
        holder
            .pragma_update(None, "journal_mode", "DELETE")
            .expect("rollback journal");
        holder.execute_batch("BEGIN EXCLUSIVE").expect("lock");
        let got =
            Store::open_or_set_aside_waiting(&path, "t", std::time::Duration::from_millis(200));
        assert!(
            matches!(got, Err(StoreError::Busy { .. })),
            "a locked database is reported busy: {:?}",
            got.err()
        );
        let asides = std::fs::read_dir(dir.path())
            .expect("dir")
            .filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.file_name().to_string_lossy().contains("unreadable"))
            })
            .count();
        assert_eq!(asides, 0, "nothing was set aside");
        holder.execute_batch("COMMIT").expect("unlock");
        drop(holder);
        let s = Store::open(&path).expect("usable again");
        assert_eq!(
            s.list_plans().expect("plans").len(),
            1,
            "with the user's data"
        );
    }

    #[test]
    fn two_set_asides_in_the_same_second_keep_both_copies() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("gpuplan.db");
        for round in 0..2 {
            std::fs::write(&path, format!("garbage {round}")).expect("write");
            let (_, notice) = Store::open_or_set_aside(&path, "same-second").expect("usable");
            let notice = notice.expect("told where the old file went");
            let expected = if round == 0 {
                "db.unreadable-same-second"
            } else {
                "db.unreadable-same-second-2"
            };
            assert!(
                notice.contains(expected),
                "round {round}: the notice names the copy: {notice}"
            );
        }
        for (name, content) in [
            ("gpuplan.db.unreadable-same-second", "garbage 0"),
            ("gpuplan.db.unreadable-same-second-2", "garbage 1"),
        ] {
            assert_eq!(
                std::fs::read_to_string(dir.path().join(name)).expect("kept"),
                content,
                "each set-aside copy is kept as it was"
            );
        }
    }

    #[test]
    fn a_newer_database_is_refused_not_touched() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("new.db");
        {
            let conn = Connection::open(&path).expect("open");
            conn.pragma_update(None, "user_version", 99).expect("set");
        }
        match Store::open(&path) {
            Err(StoreError::TooNew { found: 99, known }) => {
                assert_eq!(known, SCHEMA_VERSION, "names both versions")
            }
            other => panic!("expected TooNew, got {:?}", other.err()),
        }
        let conn = Connection::open(&path).expect("reopen");
        let v: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .expect("version");
        assert_eq!(v, 99, "the file is left as it was");
    }

    #[test]
    fn a_hand_edited_bill_is_named_by_its_row_and_field() {
        let mut s = Store::open_in_memory().expect("open");
        let id = s
            .add_ledger(&entry("2026-11-30", "16.50"), "t")
            .expect("ledger");
        s.conn
            .execute("UPDATE ledger SET cost = 'abc' WHERE id = ?1", [id])
            .expect("edit by hand");
        match s.list_ledger() {
            Err(StoreError::BadValue { what, value }) => {
                assert_eq!(what, format!("ledger[{id}].cost"), "the row and field");
                assert_eq!(value, "\"abc\"", "the value as stored");
            }
            other => panic!("a bad value is named, not {other:?}"),
        }
    }

    #[test]
    fn a_plan_saved_once_is_found_by_the_callers_judgement_not_saved_again() {
        let mut s = Store::open_in_memory().expect("open");
        let same_body = |body: &'static str| move |row: &SavedPlan| row.body == body;
        let first = s
            .save_plan_once("a", "x = 1", "t1", same_body("x = 1"))
            .expect("save");
        assert_eq!(first, (1, false), "a new plan is saved");
        let again = s
            .save_plan_once("a", "x = 1", "t2", same_body("x = 1"))
            .expect("save");
        assert_eq!(again, (1, true), "the same plan names the saved one");
        let other = s
            .save_plan_once("b", "x = 2", "t3", same_body("x = 2"))
            .expect("save");
        assert_eq!(other, (2, false), "another plan is saved anew");
        assert_eq!(
            s.list_plans().expect("list").len(),
            2,
            "two rows, not three"
        );
    }

    #[test]
    fn plans_ledger_settings_overrides_and_packs_round_trip() {
        let mut s = Store::open_in_memory().expect("open");
        let id = s
            .save_plan(
                "<script>alert(1)</script>",
                "{\"a\":1}",
                Some("{}"),
                "2026-11-30T10:00:00",
            )
            .expect("save");
        s.update_plan(id, "renamed", "{\"a\":2}", None, "2026-11-30T11:00:00")
            .expect("update");
        let p = s.get_plan(id).expect("get");
        assert_eq!(
            (p.name.as_str(), p.body.as_str()),
            ("renamed", "{\"a\":2}"),
            "updates are stored"
        );
        assert!(
            matches!(
                s.update_plan(999, "x", "{}", None, "t"),
                Err(StoreError::NotFound { .. })
            ),
            "missing plans are reported"
        );
        let e = LedgerEntry {
            plan_id: Some(id),
            ..entry("2026-11-30", "16.50")
        };
        s.add_ledger(&e, "t").expect("ledger");
        s.add_ledger(&entry("2026-12-02", "3.25"), "t")
            .expect("ledger");
        let months = s.spend_by_month().expect("months");
        assert_eq!(months.len(), 2, "two months");
        assert_eq!(
            months[0].cost,
            "16.50".parse::<Decimal>().unwrap_or_default(),
            "money is exact"
        );
        let (row, linked) = s.delete_plan(id).expect("delete").expect("it was there");
        assert_eq!(
            s.list_ledger().expect("ledger")[1].plan_id,
            None,
            "deleting a plan keeps its ledger entry, unlinked"
        );
        assert_eq!(linked.len(), 1, "the deletion names the entry it unlinked");
        assert!(
            s.delete_plan(id).expect("delete").is_none(),
            "a second delete finds nothing"
        );
        let back = s.restore_plan(&row, &linked).expect("restore");
        assert_eq!(back, id, "undo puts the plan back under its own id");
        assert_eq!(
            s.list_ledger().expect("ledger")[1].plan_id,
            Some(id),
            "and links its ledger entry again"
        );
        assert_eq!(
            s.get_plan(id).expect("plan"),
            row,
            "the same row, dates included"
        );
        s.delete_plan(id).expect("delete");
        let taken = s.save_plan("another", "{}", None, "t").expect("save");
        let again = s
            .restore_plan(&SavedPlan { id: taken, ..row }, &linked)
            .expect("restore");
        assert_ne!(again, taken, "an id taken since gets the plan a new one");
        let first = s.list_ledger().expect("ledger")[0].id;
        assert!(
            s.delete_ledger(first).expect("delete"),
            "an entry is deleted"
        );
        assert!(
            !s.delete_ledger(first).expect("delete"),
            "a second delete finds nothing"
        );
        assert_eq!(s.list_ledger().expect("ledger").len(), 1, "one entry left");
        s.set_setting("lang", "zh").expect("set");
        s.set_setting("lang", "en").expect("set");
        assert_eq!(
            s.setting("lang").expect("get").as_deref(),
            Some("en"),
            "settings upsert"
        );
        let o = StoredOverride {
            platform: "autodl".into(),
            gpu: "rtx3090".into(),
            price: "1.2".parse().unwrap_or_default(),
            note: "n".into(),
            set_on: Some("2026-12-01".into()),
        };
        s.set_override(&o).expect("override");
        s.set_override(&StoredOverride {
            price: "1.3".parse().unwrap_or_default(),
            set_on: Some("2026-12-02".into()),
            ..o.clone()
        })
        .expect("override again");
        let stored = s.overrides().expect("list");
        assert_eq!(stored.len(), 1, "one override per offer");
        assert_eq!(
            (stored[0].price.to_string(), stored[0].set_on.as_deref()),
            ("1.3".to_owned(), Some("2026-12-02")),
            "setting it again replaces the price and its day"
        );
        s.save_pack("CV 101", "body1", "t", 16).expect("pack");
        s.save_pack("CV 101", "body2", "t", 1).expect("pack again");
        assert_eq!(
            s.save_pack("CV 102", "body", "t", 1).expect("read"),
            None,
            "a second course where one is allowed is refused, inside the transaction"
        );
        let packs = s.packs().expect("packs");
        assert_eq!(
            (packs.len(), packs[0].name.as_str(), packs[0].body.as_str()),
            (1, "CV 101", "body2"),
            "a re-import replaces the pack"
        );
        assert!(
            s.delete_pack("CV 101").expect("delete"),
            "a pack can be removed"
        );
        assert!(s.packs().expect("packs").is_empty(), "and is gone");
    }
}
