//! What the host keeps on disk is private to the user running it: the checks on who owns a file or a
//! directory and who else may read or write it, and the creation of private directories and files.
//! One place for the Unix permission rules, so the session log, the compiled-code cache and the
//! secrets files apply the same ones (as ssh does for its keys).
//!
//! Unix only (the project targets Linux and macOS); elsewhere the checks pass.

use anyhow::{Context, Result, bail};
use std::fs::Metadata;
use std::path::Path;

/// Mode of a directory the host creates for itself: only its owner may list, read or write it.
pub const PRIVATE_DIR_MODE: u32 = 0o700;
/// Mode of a file the host creates for itself (a session log, a cache entry, the cache key).
pub const PRIVATE_FILE_MODE: u32 = 0o600;

/// The user this process runs as (the effective user id).
#[cfg(unix)]
pub fn current_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// The permission bits of `meta` (no file type).
#[cfg(unix)]
pub fn mode_of(meta: &Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o7777
}

/// Creates `path` (and any missing parents) as private directories. A directory that already
/// exists is left as it is: the caller checks it.
pub fn create_private_dir(path: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, PRIVATE_DIR_MODE);
    builder.create(path)
}

/// Why a file or directory that the host trusts with its own data cannot be trusted, if it cannot:
/// it belongs to another user (other than root), or users other than its owner may write it.
/// `None` when it is fine.
pub fn untrusted_because(meta: &Metadata) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        untrusted(meta.uid(), mode_of(meta), current_uid())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// [`untrusted_because`] for an owner `uid` and a `mode`, as seen by user `me`.
fn untrusted(uid: u32, mode: u32, me: u32) -> Option<String> {
    if uid != me && uid != 0 {
        return Some(format!(
            "it belongs to user id {uid}, not to you (user id {me})"
        ));
    }
    if mode & 0o022 != 0 {
        return Some(format!("other users may write it (mode {mode:03o})"));
    }
    None
}

/// The mode of `meta` when users other than its owner may read or write it (a secret is no longer one).
pub fn others_may_access(meta: &Metadata) -> Option<u32> {
    #[cfg(unix)]
    {
        let mode = mode_of(meta);
        (mode & 0o077 != 0).then_some(mode)
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// A temporary file in `dir` that only its owner may read or write (0600 whatever the umask), to be
/// renamed into place once written.
pub fn private_tempfile(dir: &Path) -> Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(PRIVATE_FILE_MODE));
    }
    builder
        .tempfile_in(dir)
        .with_context(|| format!("creating a temporary file in {}", dir.display()))
}

/// Refuses a file holding secrets (gateway keys, a provider key) that is not the user's own or that
/// anyone but its owner may read or write; `what` names it in the error ("the gateway keys file").
pub fn check_secret_file(path: &Path, what: &str) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(path)
            .with_context(|| format!("reading {what} {}", path.display()))?;
        let (uid, me) = (meta.uid(), current_uid());
        if uid != me && uid != 0 {
            bail!(
                "{what} {} belongs to user id {uid}, not to you (user id {me}): it holds secrets, and \
                 its owner can change them; use a file of your own (chown it, or copy it and chmod 600 \
                 the copy)",
                path.display()
            );
        }
        if let Some(mode) = others_may_access(&meta) {
            bail!(
                "{what} {} is readable or writable by other users (mode {mode:03o}): it holds secrets; \
                 run `chmod 600 {}`",
                path.display(),
                path.display()
            );
        }
    }
    #[cfg(not(unix))]
    let _ = (path, what);
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn chmod(path: &Path, mode: u32) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn a_secret_file_readable_or_writable_by_others_is_refused_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("provider-key");
        std::fs::write(&path, "sk-test").unwrap();
        for mode in [0o644, 0o640, 0o604, 0o620, 0o602] {
            chmod(&path, mode);
            let e = check_secret_file(&path, "the key file")
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("the key file") && e.contains("provider-key"),
                "{e}"
            );
            assert!(
                e.contains(&format!("mode {mode:03o}")) && e.contains("chmod 600"),
                "{e}"
            );
        }
        for mode in [0o600, 0o400] {
            chmod(&path, mode);
            check_secret_file(&path, "the key file").unwrap();
        }
        let e = check_secret_file(&dir.path().join("missing"), "the key file").unwrap_err();
        assert!(format!("{e:#}").contains("missing"), "{e:#}");
    }

    #[test]
    fn what_belongs_to_another_user_is_untrusted_whatever_its_mode() {
        assert_eq!(untrusted(1000, 0o700, 1000), None);
        assert_eq!(
            untrusted(0, 0o755, 1000),
            None,
            "root's own directories are trusted"
        );
        let why = untrusted(1001, 0o700, 1000).unwrap();
        assert!(
            why.contains("user id 1001") && why.contains("not to you"),
            "{why}"
        );
        assert!(untrusted(1000, 0o720, 1000).unwrap().contains("mode 720"));
    }

    #[test]
    fn private_dirs_are_created_for_the_owner_alone() {
        let dir = tempfile::tempdir().unwrap();
        let deep = dir.path().join("a/b");
        create_private_dir(&deep).unwrap();
        for d in [dir.path().join("a"), deep] {
            let meta = std::fs::metadata(&d).unwrap();
            assert_eq!(mode_of(&meta), 0o700, "{}", d.display());
            assert_eq!(untrusted_because(&meta), None);
        }
    }

    #[test]
    fn a_directory_others_may_write_is_untrusted() {
        let dir = tempfile::tempdir().unwrap();
        for (mode, trusted) in [
            (0o700, true),
            (0o755, true),
            (0o775, false),
            (0o777, false),
            (0o1777, false),
        ] {
            chmod(dir.path(), mode);
            let why = untrusted_because(&std::fs::metadata(dir.path()).unwrap());
            assert_eq!(why.is_none(), trusted, "mode {mode:o}: {why:?}");
            if let Some(why) = why {
                assert!(why.contains("other users may write it"), "{why}");
            }
        }
        chmod(dir.path(), 0o700);
    }
}
