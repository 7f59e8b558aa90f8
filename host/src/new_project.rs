//! `dsh-host new adapter|listener NAME --lang rust|python|js`: a guest project of its own, outside
//! this repository, that builds and tests with nothing but its language's toolchain.
//!
//! Every file comes from the repository, embedded at build time so nothing can drift: the
//! templates in `host/templates/` (the placeholders `{{name}}`, `{{module}}`, ... substituted), the
//! WIT this binary speaks (`wit/0.2.0`, byte for byte), and for Rust the guest SDK
//! (`guests/support`, vendored under `vendor/dsh-guest-support`: an outside crate cannot
//! path-depend on this repository, and the SDK is not on crates.io), for JavaScript the helpers of
//! the JavaScript Gemini guest (`guests/gemini/src`) and its npm lock file. The tests of this module
//! check that each embedded list is the whole directory it comes from.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

/// What kind of guest: the world it exports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// A provider adapter (world provider-adapter).
    Adapter,
    /// A recovery listener (world recovery-listener).
    Listener,
}

/// The guest's language (and toolchain).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Lang {
    /// Rust, wit-bindgen, the wasm32-wasip2 target.
    Rust,
    /// Python, componentize-py.
    Python,
    /// JavaScript, componentize-js.
    Js,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Adapter => "adapter",
            Kind::Listener => "listener",
        }
    }

    fn world(self) -> &'static str {
        match self {
            Kind::Adapter => "provider-adapter",
            Kind::Listener => "recovery-listener",
        }
    }
}

impl Lang {
    fn as_str(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::Python => "python",
            Lang::Js => "js",
        }
    }
}

/// A file embedded in the binary: its path in the project, where it comes from in the repository
/// (for the tests that check nothing is left out), its contents.
type Embedded = (&'static str, &'static str, &'static str);

/// `path => file under the repository root`, embedded with `include_str!`.
macro_rules! embed {
    ($($path:literal => $file:literal),* $(,)?) => {
        &[$(($path, $file, include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../", $file)))),*]
    };
}

/// The contract this binary speaks, written out verbatim (never rendered).
const WIT: &[Embedded] = embed! {
    "wit/0.2.0/adapter.wit" => "wit/0.2.0/adapter.wit",
    "wit/0.2.0/listener.wit" => "wit/0.2.0/listener.wit",
    "wit/0.2.0/package.wit" => "wit/0.2.0/package.wit",
    "wit/0.2.0/types.wit" => "wit/0.2.0/types.wit",
};

/// The Rust guest SDK's sources, verbatim; its manifest is rendered from `templates/rust-sdk`.
const RUST_SDK: &[Embedded] = embed! {
    "vendor/dsh-guest-support/src/answer.rs" => "guests/support/src/answer.rs",
    "vendor/dsh-guest-support/src/body.rs" => "guests/support/src/body.rs",
    "vendor/dsh-guest-support/src/classify/error_info.rs" => "guests/support/src/classify/error_info.rs",
    "vendor/dsh-guest-support/src/classify/mod.rs" => "guests/support/src/classify/mod.rs",
    "vendor/dsh-guest-support/src/classify/phrases.rs" => "guests/support/src/classify/phrases.rs",
    "vendor/dsh-guest-support/src/classify/steps.rs" => "guests/support/src/classify/steps.rs",
    "vendor/dsh-guest-support/src/classify/wording.rs" => "guests/support/src/classify/wording.rs",
    "vendor/dsh-guest-support/src/fixtures.rs" => "guests/support/src/fixtures.rs",
    "vendor/dsh-guest-support/src/json.rs" => "guests/support/src/json.rs",
    "vendor/dsh-guest-support/src/lib.rs" => "guests/support/src/lib.rs",
    "vendor/dsh-guest-support/src/listener.rs" => "guests/support/src/listener.rs",
    "vendor/dsh-guest-support/src/meaning.rs" => "guests/support/src/meaning.rs",
    "vendor/dsh-guest-support/src/retry_after.rs" => "guests/support/src/retry_after.rs",
    "vendor/dsh-guest-support/src/scan.rs" => "guests/support/src/scan.rs",
    "vendor/dsh-guest-support/src/sse.rs" => "guests/support/src/sse.rs",
    "vendor/dsh-guest-support/src/text.rs" => "guests/support/src/text.rs",
    "vendor/dsh-guest-support/src/types.rs" => "guests/support/src/types.rs",
    "vendor/dsh-guest-support/src/wit.rs" => "guests/support/src/wit.rs",
    // `fixtures::provider_failure_cases` reads it at ../../tests/fixtures from the SDK's manifest.
    "tests/fixtures/provider-failures.json" => "tests/fixtures/provider-failures.json",
};

/// The SDK's manifest: guests/support/Cargo.toml with the workspace's values written out (a test
/// checks it asks for the same dependencies).
const RUST_SDK_MANIFEST: &str = include_str!("../templates/rust-sdk/Cargo.toml");

/// The JavaScript guest's helpers, verbatim.
const JS_SUPPORT: &[Embedded] = embed! {
    "src/support/codes.js" => "guests/gemini/src/codes.js",
    "src/support/retry.js" => "guests/gemini/src/retry.js",
    "src/support/sse.js" => "guests/gemini/src/sse.js",
    "src/support/text.js" => "guests/gemini/src/text.js",
};

/// The npm lock of the JavaScript guest, whose `devDependencies` the templates' package.json pins
/// exactly; written with the project's name.
const JS_LOCK: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../guests/gemini/package-lock.json"
));
const JS_LOCK_NAME: &str = "\"name\": \"dsh-guest-gemini\"";

/// The templates, rendered: `templates/<kind>-<lang>/...` plus the shared pieces.
const ADAPTER_RUST: &[Embedded] = embed! {
    ".gitignore" => "host/templates/adapter-rust/.gitignore",
    "Cargo.toml" => "host/templates/adapter-rust/Cargo.toml",
    ".cargo/config.toml" => "host/templates/shared/cargo-config.toml",
    "src/bindings.rs" => "host/templates/adapter-rust/src/bindings.rs",
    "src/lib.rs" => "host/templates/adapter-rust/src/lib.rs",
    "tests/recorded.rs" => "host/templates/adapter-rust/tests/recorded.rs",
};
const LISTENER_RUST: &[Embedded] = embed! {
    ".gitignore" => "host/templates/listener-rust/.gitignore",
    "Cargo.toml" => "host/templates/listener-rust/Cargo.toml",
    ".cargo/config.toml" => "host/templates/shared/cargo-config.toml",
    "src/bindings.rs" => "host/templates/listener-rust/src/bindings.rs",
    "src/lib.rs" => "host/templates/listener-rust/src/lib.rs",
    "tests/recorded.rs" => "host/templates/listener-rust/tests/recorded.rs",
};
const ADAPTER_PYTHON: &[Embedded] = embed! {
    ".gitignore" => "host/templates/adapter-python/.gitignore",
    "build.sh" => "host/templates/shared/build-python.sh",
    "requirements.txt" => "host/templates/adapter-python/requirements.txt",
    "src/adapter.py" => "host/templates/adapter-python/src/adapter.py",
    "src/app.py" => "host/templates/adapter-python/src/app.py",
    "src/{{module}}.py" => "host/templates/adapter-python/src/{{module}}.py",
    "tests/test_{{module}}.py" => "host/templates/adapter-python/tests/test_{{module}}.py",
};
const LISTENER_PYTHON: &[Embedded] = embed! {
    ".gitignore" => "host/templates/listener-python/.gitignore",
    "build.sh" => "host/templates/shared/build-python.sh",
    "requirements.txt" => "host/templates/listener-python/requirements.txt",
    "src/app.py" => "host/templates/listener-python/src/app.py",
    "src/{{module}}.py" => "host/templates/listener-python/src/{{module}}.py",
    "tests/test_{{module}}.py" => "host/templates/listener-python/tests/test_{{module}}.py",
};
const ADAPTER_JS: &[Embedded] = embed! {
    ".gitignore" => "host/templates/adapter-js/.gitignore",
    "build.mjs" => "host/templates/shared/build-js.mjs",
    "package.json" => "host/templates/adapter-js/package.json",
    "src/adapter.js" => "host/templates/adapter-js/src/adapter.js",
    "src/component.js" => "host/templates/adapter-js/src/component.js",
    "test/recorded.test.js" => "host/templates/adapter-js/test/recorded.test.js",
};
const LISTENER_JS: &[Embedded] = embed! {
    ".gitignore" => "host/templates/listener-js/.gitignore",
    "build.mjs" => "host/templates/shared/build-js.mjs",
    "package.json" => "host/templates/listener-js/package.json",
    "src/component.js" => "host/templates/listener-js/src/component.js",
    "src/listener.js" => "host/templates/listener-js/src/listener.js",
    "test/recorded.test.js" => "host/templates/listener-js/test/recorded.test.js",
};

const ADAPTER_SHARED: &[Embedded] = embed! {
    "mock-script.json" => "host/templates/shared/adapter-mock.json",
    "{{tests}}/recorded.json" => "host/templates/shared/adapter-recorded.json",
};
const LISTENER_SHARED: &[Embedded] = embed! {
    "dsh.toml" => "host/templates/shared/listener-dsh.toml",
    "mock-script.json" => "host/templates/shared/listener-mock.json",
    "{{tests}}/recorded.json" => "host/templates/shared/listener-recorded.json",
};

const README_RUST: &str = include_str!("../templates/shared/README-rust.md");
const README_PYTHON: &str = include_str!("../templates/shared/README-python.md");
const README_JS: &str = include_str!("../templates/shared/README-js.md");
const RUN_ADAPTER: &str = include_str!("../templates/shared/run-adapter.md");
const RUN_LISTENER: &str = include_str!("../templates/shared/run-listener.md");

/// Names the templates' own modules and the languages' standard ones use: a guest named so would
/// shadow them (a Python module `app`, a Rust crate `test`).
const RESERVED: &[&str] = &[
    "adapter",
    "app",
    "component",
    "listener",
    "support",
    "test",
    "tests",
    "std",
    "core",
    "alloc",
    "wit-world",
    "json",
    "re",
    "sys",
    "random",
    "typing",
    "dataclasses",
    "email",
    "enum",
];
const MAX_NAME: usize = 64;

/// Whether `name` can name a guest in every language: lower-case ASCII letters and digits in words
/// joined by single hyphens, starting with a letter (a Cargo package, a Python module once hyphens
/// become underscores, an npm package, a file name).
pub fn check_name(name: &str) -> Result<()> {
    let well_formed = name.len() <= MAX_NAME
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.split('-').all(|word| {
            !word.is_empty()
                && word
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        });
    if !well_formed {
        bail!(
            "`{name}` is not a valid guest name: use lower-case letters, digits and single hyphens, \
             starting with a letter, at most {MAX_NAME} characters (e.g. my-adapter)"
        );
    }
    if RESERVED.contains(&name) {
        bail!(
            "`{name}` cannot name a guest: the templates or a language's standard library use it \
             (choose a more specific name, e.g. {name}-guest)"
        );
    }
    Ok(())
}

/// One file of the project: its path (relative) and contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectFile {
    pub path: String,
    pub contents: String,
}

impl ProjectFile {
    /// Scripts the README runs directly.
    fn executable(&self) -> bool {
        self.path.ends_with(".sh")
    }
}

/// Every file of the project, rendered, in a stable order.
pub fn project_files(kind: Kind, lang: Lang, name: &str) -> Result<Vec<ProjectFile>> {
    check_name(name)?;
    let module = name.replace('-', "_");
    let wasm = match lang {
        Lang::Rust => format!("target/wasm32-wasip2/guest/{module}.wasm"),
        Lang::Python | Lang::Js => format!("{name}.wasm"),
    };
    let python_extra = match kind {
        Kind::Adapter => {
            " and `src/adapter.py` (the decoder resource: componentize-py looks for it in a module named after the interface)"
        }
        Kind::Listener => "",
    };
    let js_extra = match kind {
        Kind::Adapter => {
            "\n- `src/support/`: helpers from dsh-host's own JavaScript guest: an SSE parser over raw bytes \
                          (`sse.js`), retry-after parsing with HTTP dates and `retry-after-ms` (`retry.js`), text \
                          helpers (`text.js`), the canonical codes (`codes.js`);"
        }
        Kind::Listener => "",
    };
    let tests = if lang == Lang::Js { "test" } else { "tests" };
    let vars: [(&str, &str); 10] = [
        ("{{name}}", name),
        ("{{module}}", &module),
        ("{{kind}}", kind.as_str()),
        ("{{world}}", kind.world()),
        ("{{wasm}}", &wasm),
        ("{{version}}", env!("CARGO_PKG_VERSION")),
        ("{{python_extra}}", python_extra),
        ("{{js_extra}}", js_extra),
        ("{{tests}}", tests),
        ("{{lang}}", lang.as_str()),
    ];
    let render = |text: &str| {
        vars.iter()
            .fold(text.to_string(), |t, (k, v)| t.replace(k, v))
    };

    let (own, readme): (&[Embedded], &str) = match (kind, lang) {
        (Kind::Adapter, Lang::Rust) => (ADAPTER_RUST, README_RUST),
        (Kind::Listener, Lang::Rust) => (LISTENER_RUST, README_RUST),
        (Kind::Adapter, Lang::Python) => (ADAPTER_PYTHON, README_PYTHON),
        (Kind::Listener, Lang::Python) => (LISTENER_PYTHON, README_PYTHON),
        (Kind::Adapter, Lang::Js) => (ADAPTER_JS, README_JS),
        (Kind::Listener, Lang::Js) => (LISTENER_JS, README_JS),
    };
    let (shared, run) = match kind {
        Kind::Adapter => (ADAPTER_SHARED, RUN_ADAPTER),
        Kind::Listener => (LISTENER_SHARED, RUN_LISTENER),
    };
    let mut files: Vec<ProjectFile> = own
        .iter()
        .chain(shared)
        .map(|(path, _, text)| ProjectFile {
            path: render(path),
            contents: render(text),
        })
        .collect();
    files.push(ProjectFile {
        path: "README.md".into(),
        contents: render(&format!("{readme}{run}")),
    });
    let verbatim = |list: &[Embedded]| {
        list.iter()
            .map(|(path, _, text)| ProjectFile {
                path: path.to_string(),
                contents: text.to_string(),
            })
            .collect::<Vec<_>>()
    };
    files.extend(verbatim(WIT));
    match lang {
        Lang::Rust => {
            files.extend(verbatim(RUST_SDK));
            files.push(ProjectFile {
                path: "vendor/dsh-guest-support/Cargo.toml".into(),
                contents: render(RUST_SDK_MANIFEST),
            });
        }
        Lang::Python => {}
        Lang::Js => {
            if kind == Kind::Adapter {
                files.extend(verbatim(JS_SUPPORT));
            }
            files.push(ProjectFile {
                path: "package-lock.json".into(),
                contents: JS_LOCK.replace(JS_LOCK_NAME, &format!("\"name\": \"{name}\"")),
            });
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

/// Writes the project into `dir` (created; it may exist only if empty). Returns the files written.
pub fn create(kind: Kind, lang: Lang, name: &str, dir: &Path) -> Result<Vec<PathBuf>> {
    let files = project_files(kind, lang, name)?;
    match std::fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                bail!(
                    "{} exists and is not empty: `dsh-host new` writes a project only into a new or \
                     empty directory (give another with --dir, or remove it)",
                    dir.display()
                );
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
            bail!(
                "{} exists and is not a directory: give another with --dir",
                dir.display()
            )
        }
        Err(e) => return Err(e).with_context(|| format!("reading {}", dir.display())),
    }
    let mut written = Vec::with_capacity(files.len());
    for file in &files {
        let path = dir.join(&file.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::write(&path, &file.contents)
            .with_context(|| format!("writing {}", path.display()))?;
        if file.executable() {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .with_context(|| format!("making {} executable", path.display()))?;
        }
        written.push(path);
    }
    Ok(written)
}

/// What to type next, printed after the project is written.
pub fn next_steps(kind: Kind, lang: Lang, dir: &Path) -> String {
    let commands = match lang {
        Lang::Rust => "cargo test\n  cargo build --target wasm32-wasip2 --profile guest",
        Lang::Python => {
            "python3 -m unittest discover -s tests\n  python3 -m pip install -r requirements.txt\n  ./build.sh"
        }
        Lang::Js => "node --test test/\n  npm install --no-audit --no-fund\n  node build.mjs",
    };
    format!(
        "next, in {}:\n  {commands}\nthen README.md says how to run the {} against `dsh-host mock`",
        dir.display(),
        kind.as_str()
    )
}

#[cfg(test)]
#[path = "new_project_tests.rs"]
mod tests;
