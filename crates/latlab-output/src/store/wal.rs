//! The store's switch to WAL journaling, waited out while another connection holds the file.

use super::{BUSY_TIMEOUT, StoreError};
use rusqlite::Connection;

/// Switch to WAL. SQLite answers this pragma "database is locked" at once, without its busy
/// handler, while another connection creates or migrates the file (seen with four writers
/// opening a new database together): wait for it as the busy timeout would.
pub(super) fn switch(conn: &Connection) -> Result<(), StoreError> {
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    loop {
        match conn.pragma_update(None, "journal_mode", "WAL") {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            r => return Ok(r?),
        }
    }
}
