//! The free space on the disk that holds a results folder: a run checks it before it starts
//! calls, since an answer that cannot be stored is paid for and lost.

use std::path::Path;

/// Bytes an unprivileged process may still write on the file system holding `dir`; `None`
/// where the system cannot say (then nothing is held back).
pub fn available_bytes(dir: &Path) -> Option<u64> {
    #[cfg(unix)]
    {
        let stat = rustix::fs::statvfs(dir).ok()?;
        Some(stat.f_bavail.saturating_mul(stat.f_frsize))
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_real_folder_has_some_space_and_a_missing_one_none() {
        let dir = tempfile::tempdir().unwrap();
        assert!(available_bytes(dir.path()).is_some_and(|b| b > 0));
        assert_eq!(available_bytes(&dir.path().join("missing")), None);
    }
}
