use super::*;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Every file under `dir` (relative to the repository root), recursively.
fn files_under(dir: &str) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                out.push(
                    path.strip_prefix(root)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    let mut out = Vec::new();
    walk(&repo(), &repo().join(dir), &mut out);
    out.sort();
    out
}

const ALL_LISTS: &[&[Embedded]] = &[
    WIT,
    RUST_SDK,
    JS_SUPPORT,
    ADAPTER_RUST,
    LISTENER_RUST,
    ADAPTER_PYTHON,
    LISTENER_PYTHON,
    ADAPTER_JS,
    LISTENER_JS,
    ADAPTER_SHARED,
    LISTENER_SHARED,
];

#[test]
fn every_template_and_sdk_file_is_embedded() {
    let embedded: std::collections::BTreeSet<&str> = ALL_LISTS
        .iter()
        .flat_map(|list| list.iter().map(|(_, source, _)| *source))
        .collect();
    let whole = [
        "shared/README-rust.md",
        "shared/README-python.md",
        "shared/README-js.md",
        "shared/run-adapter.md",
        "shared/run-listener.md",
        "rust-sdk/Cargo.toml",
    ];
    for dir in ["host/templates", "guests/support/src", "wit/0.2.0"] {
        for file in files_under(dir) {
            if whole.iter().any(|w| file.ends_with(w)) {
                continue; // embedded by include_str! on their own (README_RUST, RUST_SDK_MANIFEST, ...)
            }
            assert!(
                embedded.contains(file.as_str()),
                "{file} is not embedded by new_project.rs"
            );
        }
    }
}

#[test]
fn the_wit_written_is_the_wit_this_binary_speaks_byte_for_byte() {
    let files = project_files(Kind::Adapter, Lang::Python, "my-adapter").unwrap();
    let wit: Vec<_> = files
        .iter()
        .filter(|f| f.path.starts_with("wit/"))
        .collect();
    assert_eq!(wit.len(), files_under("wit/0.2.0").len());
    for file in wit {
        assert_eq!(
            file.contents,
            std::fs::read_to_string(repo().join(&file.path)).unwrap(),
            "{}",
            file.path
        );
    }
}

#[test]
fn every_combination_renders_without_a_placeholder_left() {
    for kind in [Kind::Adapter, Kind::Listener] {
        for lang in [Lang::Rust, Lang::Python, Lang::Js] {
            let files = project_files(kind, lang, "two-strikes").unwrap();
            assert!(files.iter().any(|f| f.path == "README.md"));
            for file in &files {
                for var in [
                    "{{name}}",
                    "{{module}}",
                    "{{kind}}",
                    "{{world}}",
                    "{{wasm}}",
                    "{{tests}}",
                    "{{version}}",
                ] {
                    assert!(
                        !file.path.contains(var) && !file.contents.contains(var),
                        "{var} in {kind:?}/{lang:?} {}",
                        file.path
                    );
                }
            }
            let readme = &files
                .iter()
                .find(|f| f.path == "README.md")
                .unwrap()
                .contents;
            let wasm = match lang {
                Lang::Rust => "target/wasm32-wasip2/guest/two_strikes.wasm",
                _ => "two-strikes.wasm",
            };
            assert!(readme.contains(wasm), "{kind:?}/{lang:?}: {readme}");
        }
    }
}

#[test]
fn names_are_checked_and_the_refusal_says_what_is_allowed() {
    for good in ["a", "my-adapter", "ollama2", "two-strikes-v2"] {
        check_name(good).unwrap();
    }
    for bad in [
        "",
        "My-Adapter",
        "2fast",
        "my_adapter",
        "-x",
        "x-",
        "a--b",
        "a b",
        "é",
        &"a".repeat(65),
    ] {
        let err = check_name(bad).unwrap_err().to_string();
        assert!(
            err.contains("lower-case letters, digits and single hyphens"),
            "{bad:?}: {err}"
        );
    }
    let err = check_name("app").unwrap_err().to_string();
    assert!(err.contains("app-guest"), "{err}");
}

#[test]
fn a_non_empty_directory_or_a_file_is_refused_and_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("keep.txt"), "mine").unwrap();
    let err = create(Kind::Adapter, Lang::Rust, "x-adapter", tmp.path())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("exists and is not empty") && err.contains("--dir"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1);

    let err = create(
        Kind::Adapter,
        Lang::Rust,
        "x-adapter",
        &tmp.path().join("keep.txt"),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("not a directory"), "{err}");

    let err = create(Kind::Adapter, Lang::Rust, "Bad", &tmp.path().join("new"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a valid guest name"), "{err}");
    assert!(
        !tmp.path().join("new").exists(),
        "nothing is written for a bad name"
    );
}

#[test]
fn a_project_is_written_into_a_new_or_empty_directory_with_its_scripts_executable() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let written = create(Kind::Listener, Lang::Python, "two-strikes", tmp.path()).unwrap();
    assert!(
        written.contains(&tmp.path().join("src/two_strikes.py")),
        "{written:?}"
    );
    let mode = std::fs::metadata(tmp.path().join("build.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111, "build.sh is executable");
    let nested = tmp.path().join("a/b");
    create(Kind::Adapter, Lang::Js, "my-adapter", &nested).unwrap();
    assert!(nested.join("src/support/sse.js").exists());
}

fn toml_of(path: &str) -> toml::Table {
    toml::from_str(&std::fs::read_to_string(repo().join(path)).unwrap()).unwrap()
}

/// A dependency table of guests/support with `workspace = true` resolved against the root.
fn resolved(deps: &toml::Value, workspace: &toml::Table) -> toml::Table {
    let mut out = toml::Table::new();
    for (name, spec) in deps.as_table().unwrap() {
        let mut spec = match spec {
            toml::Value::String(v) => {
                toml::Table::from_iter([("version".to_string(), toml::Value::String(v.clone()))])
            }
            toml::Value::Table(t) => t.clone(),
            other => panic!("{name}: {other}"),
        };
        if spec.remove("workspace").is_some() {
            let base = &workspace["workspace"]["dependencies"][name];
            let mut merged = match base {
                toml::Value::String(v) => toml::Table::from_iter([(
                    "version".to_string(),
                    toml::Value::String(v.clone()),
                )]),
                toml::Value::Table(t) => t.clone(),
                other => panic!("{name}: {other}"),
            };
            merged.extend(spec);
            spec = merged;
        }
        out.insert(name.clone(), toml::Value::Table(spec));
    }
    out
}

#[test]
fn the_vendored_sdk_manifest_asks_for_what_the_real_one_does() {
    let root = toml_of("Cargo.toml");
    let real = toml_of("guests/support/Cargo.toml");
    let vendored: toml::Table = toml::from_str(RUST_SDK_MANIFEST).unwrap();
    assert_eq!(
        resolved(&vendored["dependencies"], &root),
        resolved(&real["dependencies"], &root)
    );
    let wasm = |t: &toml::Table| {
        resolved(
            &t["target"]["cfg(target_arch = \"wasm32\")"]["dependencies"],
            &root,
        )
    };
    assert_eq!(wasm(&vendored), wasm(&real));
    assert_eq!(vendored["features"], real["features"]);
    assert_eq!(
        vendored["package"]["edition"],
        root["workspace"]["package"]["edition"]
    );
}

#[test]
fn the_rust_templates_build_with_the_repositorys_guest_profile_and_wit_bindgen() {
    let root = toml_of("Cargo.toml");
    for template in [
        "host/templates/adapter-rust/Cargo.toml",
        "host/templates/listener-rust/Cargo.toml",
    ] {
        let t = toml_of(template);
        assert_eq!(
            t["profile"]["guest"], root["profile"]["guest"],
            "{template}"
        );
        assert_eq!(
            resolved(
                &t["target"]["cfg(target_arch = \"wasm32\")"]["dependencies"],
                &root
            ),
            resolved(
                &toml::Value::Table(toml::Table::from_iter([(
                    "wit-bindgen".to_string(),
                    toml::Value::Table(toml::Table::from_iter([(
                        "workspace".to_string(),
                        toml::Value::Boolean(true)
                    )])),
                )])),
                &root
            ),
            "{template}"
        );
        assert!(
            t.contains_key("workspace"),
            "{template}: a workspace of its own"
        );
    }
}

#[test]
fn the_javascript_templates_pin_what_the_lock_file_locks() {
    let json = |path: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(repo().join(path)).unwrap()).unwrap()
    };
    let lock: serde_json::Value = serde_json::from_str(JS_LOCK).unwrap();
    for template in [
        "host/templates/adapter-js/package.json",
        "host/templates/listener-js/package.json",
    ] {
        let package = json(template);
        assert_eq!(
            package["devDependencies"], lock["packages"][""]["devDependencies"],
            "{template}"
        );
        assert_eq!(package["version"], lock["version"], "{template}");
    }
    assert_eq!(
        JS_LOCK.matches(JS_LOCK_NAME).count(),
        2,
        "the lock names its package twice"
    );
    let files = project_files(Kind::Listener, Lang::Js, "my-listener").unwrap();
    let written = &files
        .iter()
        .find(|f| f.path == "package-lock.json")
        .unwrap()
        .contents;
    let written: serde_json::Value = serde_json::from_str(written).unwrap();
    assert_eq!(written["name"], "my-listener");
    assert_eq!(written["packages"][""]["name"], "my-listener");
}

#[test]
fn an_unknown_language_or_kind_is_refused_naming_the_choices() {
    use clap::Parser;
    let err = crate::cli::Cli::try_parse_from(["dsh-host", "new", "adapter", "x", "--lang", "go"])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("'go'")
            && err.contains("rust")
            && err.contains("python")
            && err.contains("js"),
        "{err}"
    );
    let err = crate::cli::Cli::try_parse_from(["dsh-host", "new", "plugin", "x", "--lang", "rust"])
        .unwrap_err()
        .to_string();
    assert!(err.contains("adapter") && err.contains("listener"), "{err}");
}

#[test]
fn a_rust_project_builds_its_component_with_the_flags_the_built_in_guests_use() {
    let rustflags = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with("rustflags"))
            .map(str::to_string)
            .collect()
    };
    let repo_flags =
        rustflags(&std::fs::read_to_string(repo().join(".cargo/config.toml")).unwrap());
    assert_eq!(
        repo_flags.len(),
        1,
        "the repository's .cargo/config.toml has one rustflags line"
    );
    for kind in [Kind::Adapter, Kind::Listener] {
        let files = project_files(kind, Lang::Rust, "my-guest").unwrap();
        let config = files
            .iter()
            .find(|f| f.path == ".cargo/config.toml")
            .unwrap_or_else(|| panic!("a Rust {kind:?} project has no .cargo/config.toml"));
        assert!(
            config.contents.contains("[target.wasm32-wasip2]"),
            "{}",
            config.contents
        );
        assert_eq!(rustflags(&config.contents), repo_flags, "{kind:?}");
    }
}
