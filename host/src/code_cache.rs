//! The compiled-code cache: the native code wasmtime made from a guest, kept on disk so a second
//! start does not compile again. wasmtime runs what it deserializes without checking it, so an entry
//! that anyone else replaced would run as the host: an entry is loaded only when
//!
//! - the entry file and every directory above it up to the cache root belong to the current user
//!   (or root) and no one else may write them, and
//! - its authentication code (BLAKE3 in keyed mode over the component's digest and the compiled
//!   bytes, keyed by a random secret in `<root>/key`, a 0600 file) matches. A digest beside the
//!   entry would prove nothing: whoever swaps the entry swaps the digest too. Only someone who can read the key can
//!   forge the code, and the key is as private as the user's own files.
//!
//! Anything else (a replaced, corrupted, foreign or older-format entry) is deleted and the guest is
//! compiled again, said at `DSH_LOG=info`. A cache root that cannot be trusted is not used at all
//! (a warning names it and the fix); guests are then compiled at every start.
//!
//! Entry: `<blake3(component)[..32 hex]>-<sha256(engine compatibility hash)[..16 hex]>.cwasm`, holding
//! [`ENTRY_MAGIC`], the 32-byte code, then wasmtime's serialized component.
//!
//! BLAKE3 rather than HMAC-SHA256: a warm start digests the component (12-19 MB for a Python or
//! JavaScript guest) and authenticates its compiled code (about 37 MB for the JavaScript one). For
//! the JavaScript guest SHA-256 took about 35 ms of that and BLAKE3 takes about 22 ms
//! (BENCHMARKS.md, start-up).

use crate::engine::root_cause;
use crate::private_fs::{
    create_private_dir, others_may_access, private_tempfile, untrusted_because,
};
use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};
use std::hash::{Hash, Hasher};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use wasmtime::Engine;
use wasmtime::component::Component;

/// The first bytes of an entry in this format (entries of older versions lack them or carry another
/// version: recompiled).
pub const ENTRY_MAGIC: &[u8] = b"dsh-cwasm-v2\n";
/// The secret's file name in the cache root.
pub const KEY_FILE: &str = "key";
const KEY_BYTES: usize = 32;
const TAG_BYTES: usize = 32;
/// Binds an authentication code to this use of the key (and to this entry format).
const TAG_CONTEXT: &[u8] = b"dsh-host compiled-code cache v2\0";

/// An opened cache: a root the user owns, and its key.
pub struct CodeCache {
    root: PathBuf,
    engine_key: String,
    key: [u8; KEY_BYTES],
}

impl CodeCache {
    /// Opens (creating if needed, 0700) the cache at `root` and reads (or makes) its key. A root that
    /// cannot be made or trusted leaves the host without a cache: a warning says why and how to fix it.
    pub fn open(root: PathBuf, engine: &Engine) -> Option<CodeCache> {
        match Self::try_open(root.clone(), engine) {
            Ok(cache) => Some(cache),
            Err(e) => {
                tracing::warn!(
                    "not using the compiled-code cache (guests are compiled at every start): {e:#}"
                );
                None
            }
        }
    }

    fn try_open(root: PathBuf, engine: &Engine) -> Result<CodeCache> {
        create_private_dir(&root)
            .with_context(|| format!("creating the cache directory {}", root.display()))?;
        let meta = std::fs::metadata(&root)
            .with_context(|| format!("reading the cache directory {}", root.display()))?;
        if let Some(why) = untrusted_because(&meta) {
            bail!(
                "the cache directory {} cannot be trusted with code the host runs: {why}; run \
                 `chmod 700 {}` if it is yours, or point DSH_CACHE_DIR at a directory of your own",
                root.display(),
                root.display()
            );
        }
        let key = load_or_create_key(&root)?;
        let mut hasher = StableHasher(Sha256::new());
        engine.precompile_compatibility_hash().hash(&mut hasher);
        let engine_key = hex::encode(&hasher.0.finalize()[..8]);
        Ok(CodeCache {
            root,
            engine_key,
            key,
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The entry of the component whose bytes have this digest.
    fn path_for(&self, digest: &[u8; 32]) -> PathBuf {
        let digest = hex::encode(digest);
        self.root
            .join(format!("{}-{}.cwasm", &digest[..32], self.engine_key))
    }

    /// The authentication code of an entry: the component it was compiled from, and its code.
    fn tag(&self, digest: &[u8; 32], compiled: &[u8]) -> blake3::Hash {
        let mut mac = blake3::Hasher::new_keyed(&self.key);
        mac.update(TAG_CONTEXT);
        mac.update(digest);
        mac.update(compiled);
        mac.finalize()
    }

    /// The cached code of the component `bytes` (named `origin` in messages), if there is an entry
    /// the checks above trust. An entry that fails them is deleted; the caller compiles.
    pub fn load(&self, engine: &Engine, origin: &str, bytes: &[u8]) -> Option<Component> {
        let digest = component_digest(bytes);
        let path = self.path_for(&digest);
        let (entry, code_at) = match self.read_entry(&path, &digest) {
            Ok(Some(found)) => found,
            Ok(None) => return None,
            Err(Refusal::Untrusted(why)) => {
                tracing::warn!(
                    "compiling {origin} again: not loading the cached code {}: {why}",
                    path.display()
                );
                return None;
            }
            Err(Refusal::Replace(why)) => {
                tracing::info!(
                    "compiling {origin} again: the cached code {} {why}; it is not loaded and will be replaced",
                    path.display()
                );
                let _ = std::fs::remove_file(&path);
                return None;
            }
        };
        // SAFETY: the code was written by `store` of a host holding this cache's key, for exactly
        // these component bytes (the authentication code says so), and wasmtime checks its header
        // against this engine. A file nobody but the user can write and whose code matches is
        // either the host's own output or the work of someone who can already run code as the user.
        match unsafe { Component::deserialize(engine, &entry[code_at..]) } {
            Ok(component) => Some(component),
            Err(e) => {
                tracing::warn!(
                    "compiling {origin} again: the cached code {} is unusable: {}",
                    path.display(),
                    root_cause(&e)
                );
                let _ = std::fs::remove_file(&path);
                None
            }
        }
    }

    /// The entry at `path` and where its compiled bytes start in it, if it passes every check; `None`
    /// if there is none. (Not the compiled bytes alone: copying them out costs as much as reading.)
    fn read_entry(
        &self,
        path: &Path,
        digest: &[u8; 32],
    ) -> std::result::Result<Option<(Vec<u8>, usize)>, Refusal> {
        self.check_directories(path)?;
        let mut file = match open_no_follow(path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Refusal::Replace(format!("cannot be opened ({e})"))),
        };
        // The checks look at the open file itself, so what is checked is what is read.
        let meta = file
            .metadata()
            .map_err(|e| Refusal::Replace(format!("cannot be examined ({e})")))?;
        if !meta.is_file() {
            return Err(Refusal::Untrusted("it is not a regular file".into()));
        }
        if let Some(why) = untrusted_because(&meta) {
            return Err(Refusal::Replace(format!("cannot be trusted: {why}")));
        }
        // Read into memory rather than `deserialize_file`: that one maps the file, and a file cut or
        // rewritten in place while we run would then kill the process with SIGBUS; and the bytes
        // authenticated must be the bytes loaded.
        let mut entry = Vec::with_capacity(meta.len() as usize);
        file.read_to_end(&mut entry)
            .map_err(|e| Refusal::Replace(format!("cannot be read ({e})")))?;
        let Some(rest) = entry.strip_prefix(ENTRY_MAGIC) else {
            return Err(Refusal::Replace(
                "is not in this host's format (an older version, or not an entry at all)".into(),
            ));
        };
        if rest.len() < TAG_BYTES {
            return Err(Refusal::Replace("is cut short".into()));
        }
        let (tag, compiled) = rest.split_at(TAG_BYTES);
        // blake3::Hash compares in constant time.
        if self.tag(digest, compiled)
            != blake3::Hash::from_bytes(tag.try_into().expect("TAG_BYTES bytes"))
        {
            return Err(Refusal::Replace(
                "is not the code this host compiled for it (its authentication code does not match: \
                 replaced, or corrupted)"
                    .into(),
            ));
        }
        Ok(Some((entry, ENTRY_MAGIC.len() + TAG_BYTES)))
    }

    /// Every directory from the entry's up to the cache root must be the user's and not writable by
    /// others (whoever may write one may rename entries in it).
    fn check_directories(&self, path: &Path) -> std::result::Result<(), Refusal> {
        let mut dir = path.parent();
        while let Some(d) = dir {
            let meta = std::fs::metadata(d)
                .map_err(|e| Refusal::Untrusted(format!("cannot examine {} ({e})", d.display())))?;
            if let Some(why) = untrusted_because(&meta) {
                return Err(Refusal::Untrusted(format!(
                    "the directory {} cannot be trusted: {why} (run `chmod 700 {}` if it is yours)",
                    d.display(),
                    d.display()
                )));
            }
            if d == self.root {
                return Ok(());
            }
            dir = d.parent();
        }
        Err(Refusal::Untrusted(format!(
            "it is not inside the cache root {}",
            self.root.display()
        )))
    }

    /// Keeps `compiled` as the entry of the component `bytes`: written to a private temporary file,
    /// then renamed, so a crash never leaves a half-written entry under its name (and a torn one
    /// would fail its authentication code anyway).
    pub fn store(&self, bytes: &[u8], compiled: &[u8]) -> Result<()> {
        let digest = component_digest(bytes);
        let path = self.path_for(&digest);
        let tag = *self.tag(&digest, compiled).as_bytes();
        let mut tmp = private_tempfile(&self.root)?;
        tmp.write_all(ENTRY_MAGIC)
            .and_then(|()| tmp.write_all(&tag))
            .and_then(|()| tmp.write_all(compiled))
            .with_context(|| format!("writing {}", tmp.path().display()))?;
        tmp.persist(&path)
            .with_context(|| format!("renaming into {}", path.display()))?;
        Ok(())
    }
}

/// The digest a component's entry is named and authenticated by.
fn component_digest(bytes: &[u8]) -> [u8; 32] {
    *blake3::hash(bytes).as_bytes()
}

/// Why an entry is not loaded: it is deleted and replaced, or (when the fault is not the entry's
/// own, such as a directory others may write) left alone.
enum Refusal {
    Replace(String),
    Untrusted(String),
}

/// The cache's key: read from `<root>/key` when that file is the user's alone and whole, else made
/// afresh (a key that others could read can be used to forge entries: every entry made with it is
/// then compiled again).
fn load_or_create_key(root: &Path) -> Result<[u8; KEY_BYTES]> {
    let path = root.join(KEY_FILE);
    match read_key(&path) {
        Ok(Some(key)) => return Ok(key),
        Ok(None) => {}
        Err(why) => {
            tracing::warn!(
                "the compiled-code cache key {} {why}: making a new one (cached guests are compiled again)",
                path.display()
            );
            let key = new_key(root)?;
            key.1
                .persist(&path)
                .with_context(|| format!("replacing the cache key {}", path.display()))?;
            return Ok(key.0);
        }
    }
    let (key, file) = new_key(root)?;
    // Link, not rename: of two hosts starting at once, the first key stays and the other reads it.
    match file.persist_noclobber(&path) {
        Ok(_) => Ok(key),
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => match read_key(&path) {
            Ok(Some(key)) => Ok(key),
            _ => bail!(
                "the cache key {} appeared while it was being made, and cannot be used",
                path.display()
            ),
        },
        Err(e) => Err(anyhow::Error::new(e.error)
            .context(format!("creating the cache key {}", path.display()))),
    }
}

/// The key at `path`; `None` if there is none; an error saying why it cannot be used.
fn read_key(path: &Path) -> std::result::Result<Option<[u8; KEY_BYTES]>, String> {
    let mut file = match open_no_follow(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot be opened ({e})")),
    };
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot be examined ({e})"))?;
    if !meta.is_file() {
        return Err("is not a regular file".into());
    }
    if let Some(why) = untrusted_because(&meta) {
        return Err(format!("cannot be trusted: {why}"));
    }
    if let Some(mode) = others_may_access(&meta) {
        return Err(format!(
            "is readable or writable by other users (mode {mode:03o})"
        ));
    }
    let mut key = Vec::new();
    file.read_to_end(&mut key)
        .map_err(|e| format!("cannot be read ({e})"))?;
    key.try_into()
        .map(Some)
        .map_err(|k: Vec<u8>| format!("holds {} bytes, not {KEY_BYTES}", k.len()))
}

/// A fresh random key, written to a private temporary file in `root` (not yet under its name).
fn new_key(root: &Path) -> Result<([u8; KEY_BYTES], tempfile::NamedTempFile)> {
    let mut key = [0u8; KEY_BYTES];
    getrandom::fill(&mut key).map_err(|e| anyhow::anyhow!("drawing a random cache key: {e}"))?;
    let mut file = private_tempfile(root)?;
    file.write_all(&key)
        .and_then(|()| file.as_file().sync_all())
        .with_context(|| format!("writing {}", file.path().display()))?;
    Ok((key, file))
}

/// Opens a file for reading without following a symbolic link in its last component, and without
/// waiting on a FIFO put in its place (reads of a regular file still block as usual).
fn open_no_follow(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        &mut options,
        libc::O_NOFOLLOW | libc::O_NONBLOCK,
    );
    options.open(path)
}

/// Adapts `Sha256` to `std::hash::Hasher` so wasmtime's `impl Hash` can be digested stably.
struct StableHasher(Sha256);

impl Hasher for StableHasher {
    fn finish(&self) -> u64 {
        unreachable!("only the digest is used")
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn chmod(path: &Path, mode: u32) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
    }

    fn open(root: &Path) -> Option<CodeCache> {
        CodeCache::open(root.to_path_buf(), &Engine::default())
    }

    /// The entry of `component` in `cache`, as `read_entry` judges it.
    fn judge(cache: &CodeCache, component: &[u8]) -> std::result::Result<Option<Vec<u8>>, String> {
        let digest = component_digest(component);
        let found = cache.read_entry(&cache.path_for(&digest), &digest);
        found
            .map(|f| f.map(|(entry, at)| entry[at..].to_vec()))
            .map_err(|r| match r {
                Refusal::Replace(why) => format!("replace: {why}"),
                Refusal::Untrusted(why) => format!("untrusted: {why}"),
            })
    }

    fn entry(cache: &CodeCache, component: &[u8]) -> PathBuf {
        cache.path_for(&component_digest(component))
    }

    #[test]
    fn the_root_and_the_key_are_private_and_an_entry_reads_back() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("cache/compiled");
        let cache = open(&root).unwrap();
        assert_eq!(mode(&root), 0o700);
        assert_eq!(mode(&root.join(KEY_FILE)), 0o600);
        assert_eq!(std::fs::read(root.join(KEY_FILE)).unwrap().len(), KEY_BYTES);
        cache.store(b"component a", b"code of a").unwrap();
        assert_eq!(mode(&entry(&cache, b"component a")), 0o600);
        assert_eq!(
            judge(&cache, b"component a"),
            Ok(Some(b"code of a".to_vec()))
        );
        assert_eq!(judge(&cache, b"component b"), Ok(None));
        // A second start reads the same key, so the entry still authenticates.
        let again = open(&root).unwrap();
        assert_eq!(
            judge(&again, b"component a"),
            Ok(Some(b"code of a".to_vec()))
        );
    }

    #[test]
    fn an_entry_swapped_for_another_components_or_corrupted_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = open(tmp.path()).unwrap();
        cache.store(b"component a", b"code of a").unwrap();
        cache.store(b"component b", b"code of b").unwrap();
        let (a, b) = (entry(&cache, b"component a"), entry(&cache, b"component b"));

        // b's valid entry (magic, code, compiled bytes and all) under a's name.
        std::fs::copy(&b, &a).unwrap();
        let why = judge(&cache, b"component a").unwrap_err();
        assert!(
            why.starts_with("replace:") && why.contains("authentication code does not match"),
            "{why}"
        );
        assert_eq!(
            judge(&cache, b"component b"),
            Ok(Some(b"code of b".to_vec()))
        );

        // One byte of b's code changed.
        let mut bytes = std::fs::read(&b).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        std::fs::write(&b, &bytes).unwrap();
        assert!(
            judge(&cache, b"component b")
                .unwrap_err()
                .contains("authentication code does not match")
        );

        // An entry made with another cache's key.
        let other_tmp = tempfile::tempdir().unwrap();
        let other = open(other_tmp.path()).unwrap();
        other.store(b"component a", b"code of a").unwrap();
        std::fs::copy(entry(&other, b"component a"), &a).unwrap();
        assert!(
            judge(&cache, b"component a")
                .unwrap_err()
                .contains("authentication code does not match")
        );

        // An entry of an older version (no magic), and one cut short.
        std::fs::write(&a, b"\0asm compiled code").unwrap();
        assert!(
            judge(&cache, b"component a")
                .unwrap_err()
                .contains("not in this host's format")
        );
        std::fs::write(&a, [ENTRY_MAGIC, &[0; 8]].concat()).unwrap();
        assert!(
            judge(&cache, b"component a")
                .unwrap_err()
                .contains("cut short")
        );
    }

    #[test]
    fn an_entry_others_may_write_or_a_symlink_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = open(tmp.path()).unwrap();
        cache.store(b"component a", b"code of a").unwrap();
        let a = entry(&cache, b"component a");
        chmod(&a, 0o666);
        let why = judge(&cache, b"component a").unwrap_err();
        assert!(why.contains("other users may write it (mode 666)"), "{why}");

        // A link to a valid entry elsewhere is not followed.
        let elsewhere = tmp.path().join("elsewhere.cwasm");
        chmod(&a, 0o600);
        std::fs::rename(&a, &elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &a).unwrap();
        assert!(
            judge(&cache, b"component a")
                .unwrap_err()
                .contains("cannot be opened")
        );
    }

    #[test]
    fn a_root_others_may_write_is_not_used() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = open(tmp.path()).unwrap();
        cache.store(b"component a", b"code of a").unwrap();
        // Changed while the host runs: entries are refused, and left for the user to look at.
        chmod(tmp.path(), 0o777);
        let why = judge(&cache, b"component a").unwrap_err();
        assert!(
            why.starts_with("untrusted:") && why.contains("chmod 700"),
            "{why}"
        );
        assert!(entry(&cache, b"component a").exists());
        // Found so at start: no cache at all.
        assert!(open(tmp.path()).is_none());
        chmod(tmp.path(), 0o700);
    }

    #[test]
    fn a_key_others_may_read_is_replaced_and_its_entries_are_no_longer_trusted() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = open(tmp.path()).unwrap();
        cache.store(b"component a", b"code of a").unwrap();
        let key = tmp.path().join(KEY_FILE);
        let old_key = std::fs::read(&key).unwrap();
        chmod(&key, 0o644);
        let cache = open(tmp.path()).unwrap();
        assert_eq!(mode(&key), 0o600);
        assert_ne!(std::fs::read(&key).unwrap(), old_key);
        assert!(
            judge(&cache, b"component a")
                .unwrap_err()
                .contains("authentication code does not match")
        );
        // A key of the wrong length is replaced too.
        std::fs::write(&key, b"short").unwrap();
        open(tmp.path()).unwrap();
        assert_eq!(std::fs::read(&key).unwrap().len(), KEY_BYTES);
    }
}
