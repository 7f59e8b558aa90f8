//! Sessions in PostgreSQL (`DSH_SESSIONS_URL`), through the binary against a real server: a run's log
//! read back by `log` and `sessions`, one writer per session by a lease that lapses when its holder
//! dies, `--resume` continuing the retry count, the gateway replaying from the database, and the
//! failures: a database unreachable at start, and one lost mid-turn.
//!
//! These tests need a PostgreSQL server: `DSH_TEST_POSTGRES_URL` names one (a superuser, since each
//! test creates a database of its own). scripts/test starts a throwaway cluster and sets it; without
//! it these tests fail, saying how to start one (`scripts/postgres-test-cluster`), rather than skip.

use crate::support::*;
use dsh_host::pg_store::PgStore;
use dsh_host::store::Event;
use serde_json::json;
use std::process::Output;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

const SERVER_ERROR: &str = r#"{"status":500,"body":"{\"error\":{\"message\":\"The server had an error\",\"type\":\"server_error\"}}"}"#;

fn ok(text: &str) -> String {
    format!(r#"{{"completion":{{"text":["{text}"]}}}}"#)
}

/// The test cluster's URL: required (see the module's comment).
fn cluster_url() -> String {
    std::env::var("DSH_TEST_POSTGRES_URL").unwrap_or_else(|_| {
        panic!(
            "DSH_TEST_POSTGRES_URL is not set: the sessions-in-PostgreSQL tests need a server. scripts/test \
             starts one; by hand: export DSH_TEST_POSTGRES_URL=$(scripts/postgres-test-cluster start \
             /tmp/dsh-pg), and `scripts/postgres-test-cluster stop /tmp/dsh-pg` when done"
        )
    })
}

/// A connection to the cluster's `database` (its maintenance database by default), as its superuser.
async fn connect(database: Option<&str>) -> tokio_postgres::Client {
    let url = match database {
        Some(name) => with_database(&cluster_url(), name),
        None => cluster_url(),
    };
    let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap_or_else(|e| panic!("connecting to the test cluster DSH_TEST_POSTGRES_URL: {e}"));
    tokio::spawn(connection);
    client
}

fn with_database(url: &str, name: &str) -> String {
    let (server, _) = url.rsplit_once('/').expect("a URL ending in /DATABASE");
    format!("{server}/{name}")
}

/// A database of this test's own, empty: its name and its URL.
struct TestDb {
    name: String,
    url: String,
}

async fn test_db() -> TestDb {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let name = format!(
        "dsh_test_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    connect(None)
        .await
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .await
        .unwrap();
    TestDb {
        url: with_database(&cluster_url(), &name),
        name,
    }
}

/// The binary with the scratch environment and its sessions in `db`.
fn command(
    scratch: &Scratch,
    db: &TestDb,
    args: &[&str],
    key: Option<&str>,
) -> tokio::process::Command {
    let mut cmd = scratch.command(args, key);
    cmd.env("DSH_SESSIONS_URL", &db.url);
    cmd
}

async fn run_bin(scratch: &Scratch, db: &TestDb, args: &[&str], key: Option<&str>) -> Output {
    command(scratch, db, args, key)
        .output()
        .await
        .expect("dsh-host runs")
}

/// The store as the binary opens it (off the test's runtime: its calls block).
async fn with_store<T: Send + 'static>(
    db: &TestDb,
    work: impl FnOnce(&PgStore) -> T + Send + 'static,
) -> T {
    let url = db.url.clone();
    tokio::task::spawn_blocking(move || {
        work(&PgStore::connect(&url, Duration::from_secs(30)).unwrap())
    })
    .await
    .unwrap()
}

async fn events(db: &TestDb, id: &str) -> Vec<Event> {
    let id = id.to_string();
    with_store(db, move |s| {
        s.read(&id).unwrap_or_else(|e| panic!("{e:#}")).events
    })
    .await
}

async fn ids(db: &TestDb) -> Vec<String> {
    with_store(db, |s| s.ids().unwrap()).await
}

/// Waits until the only session of `db` holds an event of `kind`; its id and events.
async fn wait_for_kind(db: &TestDb, kind: &str) -> (String, Vec<Event>) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let [id] = ids(db).await.as_slice() {
            let events = events(db, id).await;
            if !of_kind(&events, kind).is_empty() {
                return (id.clone(), events);
            }
        }
        assert!(Instant::now() < deadline, "no {kind} event within a minute");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn seqs(events: &[Event]) -> Vec<u64> {
    events.iter().map(|e| e.seq).collect()
}

fn json_events(out: &Output) -> Vec<Event> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[tokio::test]
async fn a_run_kept_in_postgres_is_read_back_by_log_listed_and_pruned_and_writes_no_file() {
    let db = test_db().await;
    let mock = mock(&script_of(&[&ok("Hello from the database")])).await;
    let scratch = Scratch::new();
    let out = run_bin(
        &scratch,
        &db,
        &["run", "--base-url", &mock.base_url(), "hi"],
        Some(TEST_KEY),
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("Hello from the database"),
        "{}",
        stdout(&out)
    );
    assert!(
        !scratch.sessions().exists(),
        "nothing goes to the sessions directory"
    );

    let [id] = ids(&db).await.try_into().unwrap();
    let stored = events(&db, &id).await;
    assert_eq!(kinds(&stored).first(), Some(&"session/start"));
    assert_eq!(of_kind(&stored, "turn/end")[0].data["outcome"], "completed");
    assert_eq!(seqs(&stored), (1..=stored.len() as u64).collect::<Vec<_>>());

    // `log` (by id and --last) prints what the database holds.
    for args in [
        vec!["log", "--json", id.as_str()],
        vec!["log", "--last", "--json"],
    ] {
        let out = run_bin(&scratch, &db, &args, None).await;
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert_eq!(json_events(&out), stored, "{args:?}");
    }
    let out = run_bin(&scratch, &db, &["log", &id], None).await;
    assert!(stdout(&out).contains("turn/end"), "{}", stdout(&out));
    let out = run_bin(&scratch, &db, &["sessions", "list", "--json"], None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let listed: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(
        (listed["id"].as_str(), listed["outcome"].as_str()),
        (Some(id.as_str()), Some("completed")),
        "{listed}"
    );

    // Prune: a fresh session stays; once last written 40 days ago, it goes (events with it).
    let out = run_bin(
        &scratch,
        &db,
        &["sessions", "prune", "--older-than", "30d"],
        None,
    )
    .await;
    assert!(
        out.status.success() && stdout(&out).is_empty(),
        "{}",
        stderr(&out)
    );
    let client = connect(Some(&db.name)).await;
    client
        .execute(
            "UPDATE dsh_sessions SET modified = now() - interval '40 days'",
            &[],
        )
        .await
        .unwrap();
    let out = run_bin(
        &scratch,
        &db,
        &["sessions", "prune", "--older-than", "30d"],
        None,
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with(&id), "{}", stdout(&out));
    assert!(ids(&db).await.is_empty());
    let left: i64 = client
        .query_one("SELECT count(*) FROM dsh_events", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(left, 0);
    let version: i32 = client
        .query_one("SELECT max(version) FROM dsh_schema_version", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(
        version, 2,
        "sessions and events (1), the fleet's cool-downs (2)"
    );
    let cooldowns: i64 = client
        .query_one("SELECT count(*) FROM dsh_cooldowns", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(
        cooldowns, 0,
        "a completed run without a rate limit records none"
    );
}

#[tokio::test]
async fn a_second_writer_is_refused_while_the_lease_lives_and_resume_continues_the_retry_count_once_it_lapses()
 {
    // The first run parks in an 8 s backoff after its durable `llm/retry`. While it lives, and just
    // after it is SIGKILLed (its lease not lapsed yet), a `--resume` is refused naming it; once the
    // 5 s lease lapses, the resume takes the session and continues the same turn.
    let db = test_db().await;
    let mock = mock(&script_of(&[SERVER_ERROR, &ok("after the lease")])).await;
    let scratch = Scratch::new();
    scratch.config("[providers.openai.retry_policy]\ninitial_delay_ms = 8000\njitter_ratio = 0.0\n[sessions]\nlease = \"5s\"\n");
    let mut first = command(
        &scratch,
        &db,
        &["run", "--base-url", &mock.base_url(), "hi"],
        Some(TEST_KEY),
    )
    .stderr(std::process::Stdio::null())
    .spawn()
    .unwrap();
    let pid = first.id().unwrap();
    let (id, before) = wait_for_kind(&db, "llm/retry").await;

    let refused = |out: &Output| {
        assert_eq!(out.status.code(), Some(2), "{}", stderr(out));
        let err = stderr(out);
        assert!(
            err.contains(&format!(
                "session '{id}' is being written by another dsh-host process"
            )),
            "{err}"
        );
        assert!(
            err.contains(&format!("pid {pid} ")),
            "the holder is named: {err}"
        );
    };
    refused(&run_bin(&scratch, &db, &["run", "--resume", &id], Some(TEST_KEY)).await);
    first.kill().await.unwrap();
    refused(&run_bin(&scratch, &db, &["run", "--resume", &id], Some(TEST_KEY)).await);
    assert_eq!(
        events(&db, &id).await,
        before,
        "a refused writer writes nothing"
    );

    let deadline = Instant::now() + Duration::from_secs(15);
    let probe = id.clone();
    while with_store(&db, {
        let id = probe.clone();
        move |s| s.is_being_written(&id).unwrap()
    })
    .await
    {
        assert!(
            Instant::now() < deadline,
            "the dead holder's lease never lapsed"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let out = run_bin(&scratch, &db, &["run", "--resume", &id], Some(TEST_KEY)).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("after the lease"), "{}", stdout(&out));

    let after = events(&db, &id).await;
    assert_eq!(&after[..before.len()], &before[..]);
    assert_eq!(
        seqs(&after),
        (1..=after.len() as u64).collect::<Vec<_>>(),
        "{}",
        timeline(&after)
    );
    let retries: Vec<u64> = of_kind(&after, "llm/retry")
        .iter()
        .map(|e| e.data["retry"].as_u64().unwrap())
        .collect();
    assert_eq!(retries, [1], "{}", timeline(&after));
    let attempts: Vec<u64> = of_kind(&after, "llm/request")
        .iter()
        .map(|e| e.data["attempt"].as_u64().unwrap())
        .collect();
    assert_eq!(
        attempts,
        [1, 2],
        "the resumed attempt counts on from the log: {}",
        timeline(&after)
    );
    assert_eq!(of_kind(&after, "session/resumed").len(), 1);
    assert_eq!(
        of_kind(&after, "turn/start").len(),
        1,
        "the same turn, continued"
    );
    assert_eq!(of_kind(&after, "turn/end")[0].data["outcome"], "completed");
    assert!(
        !with_store(&db, move |s| s.is_being_written(&id).unwrap()).await,
        "released at exit"
    );
}

#[tokio::test]
async fn an_unreachable_database_is_an_error_naming_its_url_without_the_password() {
    // A port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgres://dsh:s3cret-pw@127.0.0.1:{port}/dsh");
    let shown = format!("postgres://dsh:***@127.0.0.1:{port}/dsh");
    let scratch = Scratch::new();
    let db = TestDb {
        name: String::new(),
        url: url.clone(),
    };
    for args in [
        vec!["log", "--last"],
        vec!["run", "--base-url", "http://127.0.0.1:9/v1", "hi"],
        vec!["sessions", "list"],
    ] {
        let out = run_bin(&scratch, &db, &args, Some(TEST_KEY)).await;
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains(&format!("cannot use the sessions database {shown}")),
            "{args:?}: {err}"
        );
        assert!(err.contains("DSH_SESSIONS_URL"), "the fix is named: {err}");
        assert!(
            !err.contains("s3cret-pw") && !stdout(&out).contains("s3cret-pw"),
            "{err}"
        );
    }
    // The same from the config file; and a URL asking for TLS is refused, not sent in the clear.
    scratch.config(&format!("[sessions]\nurl = \"{url}?sslmode=require\"\n"));
    let out = scratch.run_bin(&["log", "--last"], None).await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("{shown}?sslmode=require")) && err.contains("asks for TLS"),
        "{err}"
    );
    assert!(!err.contains("s3cret-pw"), "{err}");
}

#[tokio::test]
async fn a_database_lost_mid_turn_fails_the_turn_as_a_host_error_and_the_log_stays_readable() {
    // The run commits its `llm/retry`, then waits 3 s; meanwhile the database stops taking
    // connections and its sessions are terminated. The end of the turn cannot be committed: a host
    // error, and the log holds what was committed, whole.
    let db = test_db().await;
    let mock = mock(&script_of(&[SERVER_ERROR, &ok("never stored")])).await;
    let scratch = Scratch::new();
    scratch.config("[providers.openai.retry_policy]\ninitial_delay_ms = 3000\njitter_ratio = 0.0\n[sessions]\nlease = \"2s\"\n");
    let run = command(
        &scratch,
        &db,
        &["run", "--base-url", &mock.base_url(), "hi"],
        Some(TEST_KEY),
    )
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    let (id, before) = wait_for_kind(&db, "llm/retry").await;
    let admin = connect(None).await;
    admin
        .batch_execute(&format!(
            "ALTER DATABASE {} ALLOW_CONNECTIONS false",
            db.name
        ))
        .await
        .unwrap();
    admin
        .execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1",
            &[&db.name],
        )
        .await
        .unwrap();

    let out = tokio::time::timeout(Duration::from_secs(60), run.wait_with_output())
        .await
        .expect("the run ends")
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "a host error: {}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("session '{id}'")) && err.contains("could not be committed"),
        "{err}"
    );
    assert!(
        err.contains("none of them was written") && err.contains(&format!("--resume {id}")),
        "{err}"
    );
    let password = cluster_url()
        .split_once("://")
        .unwrap()
        .1
        .split_once('@')
        .unwrap()
        .0
        .split_once(':')
        .unwrap()
        .1
        .to_string();
    assert!(
        !err.contains(&password) && err.contains(":***@"),
        "the URL without its password: {err}"
    );
    // Before the retry is sent, the session asks the database for a cool-down: the lost database is
    // found there, and nothing is sent whose answer could not be kept.
    assert_eq!(mock.requests().len(), 1, "the retry was not sent: {err}");
    assert!(
        err.contains("reading the cool-downs of openai in postgres://"),
        "{err}"
    );

    admin
        .batch_execute(&format!(
            "ALTER DATABASE {} ALLOW_CONNECTIONS true",
            db.name
        ))
        .await
        .unwrap();
    let out = run_bin(&scratch, &db, &["log", "--json", &id], None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let after = json_events(&out);
    assert_eq!(
        after,
        before,
        "nothing after the last durable point: {}",
        timeline(&after)
    );
    assert_eq!(after.last().unwrap().kind, "llm/retry");
    assert_eq!(seqs(&after), (1..=after.len() as u64).collect::<Vec<_>>());
}

#[tokio::test]
async fn the_gateway_replays_an_idempotent_request_from_the_database() {
    let db = test_db().await;
    let mock = mock(&script(&[
        json!({"completion": {"text": ["Stored ", "answer"]}}),
    ]))
    .await;
    let scratch = Scratch::new();
    scratch.config(&format!(
        "{}\n[gateway]\ndefault_provider = \"up\"\n",
        upstream_toml("up", "openai-compatible", &mock.base_url(), 2, 10)
    ));
    let body =
        json!({"model": "gpt-test", "messages": [{"role": "user", "content": "hi"}]}).to_string();
    let post = |gw: &GatewayProcess| {
        reqwest::Client::new()
            .post(gw.url("/v1/chat/completions"))
            .header("content-type", "application/json")
            .header("idempotency-key", "order-1")
            .body(body.clone())
            .send()
    };
    let gw = scratch
        .start_gateway(
            &["--allow-unauthenticated"],
            &[("DSH_SESSIONS_URL", &db.url)],
        )
        .await;
    let first = post(&gw).await.unwrap();
    assert_eq!(first.status(), 200);
    let session = first.headers()["x-dsh-session"]
        .to_str()
        .unwrap()
        .to_string();
    let text: serde_json::Value = serde_json::from_str(&first.text().await.unwrap()).unwrap();
    assert_eq!(text["choices"][0]["message"]["content"], "Stored answer");
    assert_eq!(ids(&db).await, std::slice::from_ref(&session));
    assert!(
        !scratch.sessions().exists(),
        "nothing goes to the sessions directory"
    );

    // Another gateway process on the same database answers the client's retry from the log.
    let other = scratch
        .start_gateway(
            &["--allow-unauthenticated"],
            &[("DSH_SESSIONS_URL", &db.url)],
        )
        .await;
    let again = post(&other).await.unwrap();
    assert_eq!(again.status(), 200);
    assert_eq!(again.headers()["x-dsh-replayed"], "true");
    assert_eq!(again.headers()["x-dsh-session"].to_str().unwrap(), session);
    let text: serde_json::Value = serde_json::from_str(&again.text().await.unwrap()).unwrap();
    assert_eq!(text["choices"][0]["message"]["content"], "Stored answer");
    assert_eq!(
        mock.requests().len(),
        1,
        "a replay never calls the provider"
    );
    let stored = events(&db, &session).await;
    assert_eq!(
        of_kind(&stored, "turn/end").len(),
        1,
        "{}",
        timeline(&stored)
    );
}

#[tokio::test]
async fn sessions_import_copies_json_lines_logs_once_and_then_only_what_grew() {
    let db = test_db().await;
    let mock = mock(&script_of(&[&ok("one"), &ok("two"), &ok("three")])).await;
    let scratch = Scratch::new();
    // Two sessions in files (no DSH_SESSIONS_URL: the scratch sessions directory).
    for prompt in ["first", "second"] {
        let out = scratch
            .run_bin(
                &["run", "--base-url", &mock.base_url(), prompt],
                Some(TEST_KEY),
            )
            .await;
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let dir = scratch.sessions().display().to_string();
    let files = dsh_host::log::FileStore::open(&scratch.sessions()).unwrap();
    let mut file_ids = files.ids().unwrap();
    file_ids.sort();

    let out = run_bin(&scratch, &db, &["sessions", "import", &dir], None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<String> = stdout(&out).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 2, "{}", stdout(&out));
    for (line, id) in lines.iter().zip(&file_ids) {
        let n = files.read(id).unwrap().events.len();
        assert_eq!(line, &format!("{id}  imported  {n} events"));
    }
    for id in &file_ids {
        assert_eq!(
            events(&db, id).await,
            files.read(id).unwrap().events,
            "{id}"
        );
        let out = run_bin(&scratch, &db, &["log", "--json", id], None).await;
        assert_eq!(json_events(&out), files.read(id).unwrap().events);
    }

    // Again: nothing written. Then one session grows in its file: only its new events are added.
    let out = run_bin(&scratch, &db, &["sessions", "import", &dir], None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        file_ids
            .iter()
            .map(|id| format!("{id}  already imported\n"))
            .collect::<String>()
    );
    let grown = &file_ids[0];
    let before = files.read(grown).unwrap().events.len();
    let out = scratch
        .run_bin(
            &[
                "run",
                "--base-url",
                &mock.base_url(),
                "--resume",
                grown,
                "more",
            ],
            Some(TEST_KEY),
        )
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let now = files.read(grown).unwrap().events;
    let out = run_bin(&scratch, &db, &["sessions", "import", &dir], None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&format!(
            "{grown}  extended  {} new events",
            now.len() - before
        )),
        "{}",
        stdout(&out)
    );
    assert_eq!(events(&db, grown).await, now);

    // A different session under an id the database holds is refused, and leaves it as it was.
    let other = &file_ids[1];
    let client = connect(Some(&db.name)).await;
    client
        .execute("UPDATE dsh_events SET event = '{\"seq\":2,\"ts\":\"t\",\"type\":\"other\"}' WHERE session = $1 AND seq = 2", &[other])
        .await
        .unwrap();
    let kept = events(&db, other).await;
    let out = run_bin(&scratch, &db, &["sessions", "import", &dir], None).await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("could not import session '{other}'"))
            && stderr(&out).contains("differs"),
        "{}",
        stderr(&out)
    );
    assert_eq!(events(&db, other).await, kept);
}

#[tokio::test]
async fn a_writer_whose_lease_was_taken_over_cannot_commit_and_a_follower_sees_each_commit_once() {
    let db = test_db().await;
    let url = db.url.clone();
    let name = db.name.clone();
    tokio::task::spawn_blocking(move || {
        let store = PgStore::connect(&url, Duration::from_secs(30)).unwrap();
        let mut log = store.create_named("s1").unwrap();
        let mut follower = store.follow("s1", 0).unwrap();
        log.append("session/start", json!({})).unwrap();
        assert!(
            follower.poll().unwrap().is_empty(),
            "not durable yet, not seen"
        );
        log.append_durable("llm/retry", json!({"retry": 1}))
            .unwrap();
        assert_eq!(
            seqs(&follower.poll().unwrap()),
            [1, 2],
            "one commit, both events"
        );
        assert!(follower.poll().unwrap().is_empty());

        // Another store (another process) is refused while the lease lives.
        let other = PgStore::connect(&url, Duration::from_secs(30)).unwrap();
        let err = other.claim("s1").err().unwrap().to_string();
        assert!(
            err.contains("is being written by another dsh-host process") && err.contains("lease 1"),
            "{err}"
        );
        // The writer stalls past its lease (made to lapse here) and the other takes over: the stalled
        // writer's next commit is refused, and writes nothing.
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let client = connect(Some(&name)).await;
            client
                .execute(
                    "UPDATE dsh_sessions SET lease_expires = now() - interval '1 second'",
                    &[],
                )
                .await
                .unwrap();
        });
        let (mut taker, read) = other.claim("s1").unwrap().open_for_append();
        assert_eq!(read.events.len(), 2);
        let err = log
            .append_durable("turn/end", json!({}))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("no longer this process's to write")
                && err.contains("events 3..3 were not written"),
            "{err}"
        );
        taker.append_durable("session/resumed", json!({})).unwrap();
        drop(log);
        drop(taker);
        let kinds: Vec<String> = store
            .read("s1")
            .unwrap()
            .events
            .into_iter()
            .map(|e| e.kind)
            .collect();
        assert_eq!(kinds, ["session/start", "llm/retry", "session/resumed"]);
        assert!(
            !store.is_being_written("s1").unwrap(),
            "released when dropped"
        );
    })
    .await
    .unwrap();
}

// ---- a fleet of gateways on one database (issue #13 items 3 and 4) ------------------------------

/// `[providers.up]` on `mock` as the gateway's default provider, with a session lease of `lease`.
fn fleet_config(
    mock: &dsh_host::mock::MockServer,
    max_retries: u32,
    initial_delay_ms: u64,
    lease: &str,
) -> String {
    format!(
        "{}\n[gateway]\ndefault_provider = \"up\"\n[sessions]\nlease = {lease:?}\n",
        upstream_toml(
            "up",
            "openai-compatible",
            &mock.base_url(),
            max_retries,
            initial_delay_ms
        )
    )
}

/// A chat completion request to `gw` for `content`, with an `Idempotency-Key` when given. The
/// future owns everything, so it can be spawned and outlive a killed gateway.
fn ask(
    gw: &GatewayProcess,
    content: &str,
    key: Option<&str>,
) -> impl std::future::Future<Output = reqwest::Result<reqwest::Response>> + 'static {
    let body = json!({"model": "gpt-test", "messages": [{"role": "user", "content": content}]})
        .to_string();
    let mut request = reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap()
        .post(gw.url("/v1/chat/completions"))
        .header("content-type", "application/json")
        .body(body);
    if let Some(key) = key {
        request = request.header("idempotency-key", key);
    }
    request.send()
}

async fn content_of(response: reqwest::Response) -> String {
    let body: serde_json::Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    body["choices"][0]["message"]["content"]
        .as_str()
        .unwrap_or_else(|| panic!("no content: {body}"))
        .to_string()
}

async fn metrics_of(gw: &GatewayProcess) -> String {
    reqwest::get(gw.url("/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_request_whose_gateway_was_killed_in_a_backoff_is_continued_by_another_gateway_with_its_count()
 {
    // Two gateway processes on one database. On A, the request meets a 500 and parks in a 4 s backoff
    // after its durable `llm/retry`; A is SIGKILLed there. The client's retry (same Idempotency-Key)
    // goes to B while A's 3 s lease still lives: B waits for it to lapse (a dead holder stops
    // renewing), then continues the same turn with the count from the database: the rest of the
    // backoff, then attempt 2. No event is lost or written twice.
    let db = test_db().await;
    let mock = mock(&script_of(&[SERVER_ERROR, &ok("continued elsewhere")])).await;
    let scratch = Scratch::new();
    scratch.config(&fleet_config(&mock, 3, 4000, "3s"));
    let env = [("DSH_SESSIONS_URL", db.url.as_str())];
    let mut a = scratch
        .start_gateway(&["--allow-unauthenticated"], &env)
        .await;
    let b = scratch
        .start_gateway(&["--allow-unauthenticated"], &env)
        .await;

    let lost = tokio::spawn(ask(&a, "hi", Some("job-42")));
    let (id, before) = wait_for_kind(&db, "llm/retry").await;
    a.signal(libc::SIGKILL);
    a.exit(Duration::from_secs(10)).await;
    assert!(
        lost.await.unwrap().is_err(),
        "the first client's connection died with its gateway"
    );
    assert!(
        of_kind(&before, "llm/retry-started").is_empty(),
        "killed during the backoff: {}",
        timeline(&before)
    );
    assert!(
        with_store(&db, {
            let id = id.clone();
            move |s| s.is_being_written(&id).unwrap()
        })
        .await,
        "the dead gateway's lease still lives when the client retries"
    );

    let answer = ask(&b, "hi", Some("job-42")).await.unwrap();
    assert_eq!(answer.status(), 200, "{}", b.stderr());
    assert_eq!(answer.headers()["x-dsh-session"].to_str().unwrap(), id);
    assert_eq!(content_of(answer).await, "continued elsewhere");

    let after = events(&db, &id).await;
    assert_eq!(
        &after[..before.len()],
        &before[..],
        "what A made durable is kept as it was"
    );
    assert_eq!(
        seqs(&after),
        (1..=after.len() as u64).collect::<Vec<_>>(),
        "no event lost or written twice: {}",
        timeline(&after)
    );
    let retries: Vec<u64> = of_kind(&after, "llm/retry")
        .iter()
        .map(|e| e.data["retry"].as_u64().unwrap())
        .collect();
    assert_eq!(retries, [1], "{}", timeline(&after));
    assert_eq!(
        of_kind(&after, "llm/retry-started").len(),
        1,
        "{}",
        timeline(&after)
    );
    let attempts: Vec<u64> = of_kind(&after, "llm/request")
        .iter()
        .map(|e| e.data["attempt"].as_u64().unwrap())
        .collect();
    assert_eq!(
        attempts,
        [1, 2],
        "B's attempt counts on from A's: {}",
        timeline(&after)
    );
    assert_eq!(
        of_kind(&after, "turn/start").len(),
        1,
        "the same turn, continued"
    );
    assert_eq!(of_kind(&after, "gateway/continue").len(), 1);
    assert_eq!(of_kind(&after, "turn/end").len(), 1);
    assert_eq!(of_kind(&after, "turn/end")[0].data["outcome"], "completed");
    let requests = mock.requests();
    assert_eq!(
        requests.len(),
        2,
        "one request per attempt, across both processes"
    );
    let gap = requests[1]
        .received
        .duration_since(requests[0].received)
        .unwrap();
    assert!(
        gap >= Duration::from_millis(3900),
        "the backoff A logged was waited out by B: {gap:?}"
    );
    assert!(
        metrics_of(&b)
            .await
            .contains("dsh_gateway_lease_waits_total 1"),
        "{}",
        metrics_of(&b).await
    );
}

#[tokio::test]
async fn a_key_being_answered_by_a_live_gateway_is_409_with_when_to_come_back_then_replayed() {
    // A answers slowly (its lease renewed every second); B gets the same key meanwhile, waits one
    // lease length, sees the lease renewed (a live holder), and answers 409 with retry-after and
    // x-should-retry: true. Once A is done, the same retry on B is the replayed answer.
    let db = test_db().await;
    let mock = mock(&script(&[
        json!({"completion": {"text": ["slow ", "answer"], "delay_ms": 1500}}),
    ]))
    .await;
    let scratch = Scratch::new();
    scratch.config(&fleet_config(&mock, 2, 100, "3s"));
    let env = [("DSH_SESSIONS_URL", db.url.as_str())];
    let a = scratch
        .start_gateway(&["--allow-unauthenticated"], &env)
        .await;
    let b = scratch
        .start_gateway(&["--allow-unauthenticated"], &env)
        .await;
    let first = tokio::spawn(ask(&a, "hi", Some("slow-1")));
    while mock.requests().is_empty() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let busy = ask(&b, "hi", Some("slow-1")).await.unwrap();
    assert_eq!(busy.status(), 409);
    assert_eq!(busy.headers()["x-should-retry"], "true");
    let after: u64 = busy.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        (1..=4).contains(&after),
        "retry-after {after}: at most the lease"
    );
    let body = busy.text().await.unwrap();
    assert!(
        body.contains("request_in_progress") && body.contains("another gateway process"),
        "{body}"
    );

    let first = first.await.unwrap().unwrap();
    assert_eq!(first.status(), 200);
    assert_eq!(content_of(first).await, "slow answer");
    let again = ask(&b, "hi", Some("slow-1")).await.unwrap();
    assert_eq!(again.status(), 200);
    assert_eq!(again.headers()["x-dsh-replayed"], "true");
    assert_eq!(content_of(again).await, "slow answer");
    assert_eq!(mock.requests().len(), 1, "the provider was asked once");
}

#[tokio::test]
async fn one_gateways_429_holds_another_gateways_request_to_the_same_key_and_model() {
    // A's request meets a 429 asking for 3 s. The cool-down goes into the database, and B (another
    // process, another client's conversation, the same upstream key and model) holds its request
    // until it ends, instead of meeting the same 429. Both then succeed.
    let db = test_db().await;
    let mock = mock(&script(&[
        rate_limited(Some("3")),
        json!({"completion": {"text": ["one"]}}),
        json!({"completion": {"text": ["two"]}}),
    ]))
    .await;
    let scratch = Scratch::new();
    scratch.config(&fleet_config(&mock, 3, 100, "30s"));
    let env = [("DSH_SESSIONS_URL", db.url.as_str())];
    let a = scratch
        .start_gateway(&["--allow-unauthenticated"], &env)
        .await;
    let b = scratch
        .start_gateway(&["--allow-unauthenticated"], &env)
        .await;

    let first = tokio::spawn(ask(&a, "first conversation", None));
    // Its `llm/retry` is durable after the cool-down was recorded.
    let (a_id, _) = wait_for_kind(&db, "llm/retry").await;
    let second = tokio::spawn(ask(&b, "second conversation", None));
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert_eq!(
        mock.requests().len(),
        1,
        "B sends nothing while the cool-down runs"
    );

    let (first, second) = (
        first.await.unwrap().unwrap(),
        second.await.unwrap().unwrap(),
    );
    assert_eq!(
        (first.status().as_u16(), second.status().as_u16()),
        (200, 200),
        "{}",
        b.stderr()
    );
    let b_id = second.headers()["x-dsh-session"]
        .to_str()
        .unwrap()
        .to_string();
    let requests = mock.requests();
    assert_eq!(requests.len(), 3, "the 429, A's retry and B's one request");
    for later in &requests[1..] {
        let gap = later.received.duration_since(requests[0].received).unwrap();
        assert!(
            gap >= Duration::from_millis(2900),
            "sent {gap:?} after the 429 that asked for 3 s"
        );
    }

    let b_events = events(&db, &b_id).await;
    let held = of_kind(&b_events, "llm/cooldown");
    assert_eq!(held.len(), 1, "{}", timeline(&b_events));
    assert_eq!(held[0].data["code"], "RATE_LIMITED");
    assert_eq!(held[0].data["provider"], "up");
    let wait = held[0].data["wait_ms"].as_u64().unwrap();
    // What was left of the 3 s, plus this session's place in the spread (at most a tenth of it).
    assert!((1500..=3300).contains(&wait), "held {wait} ms of the 3 s");
    assert!(
        of_kind(&b_events, "llm/failure").is_empty(),
        "B never met the 429: {}",
        timeline(&b_events)
    );
    assert_eq!(of_kind(&b_events, "llm/request").len(), 1);
    let a_events = events(&db, &a_id).await;
    assert!(
        of_kind(&a_events, "llm/cooldown").is_empty(),
        "A's own retry waits its 429 out: {}",
        timeline(&a_events)
    );
    let page = metrics_of(&b).await;
    assert!(
        page.contains("dsh_gateway_cooldown_holds_total{") && page.contains("RATE_LIMITED"),
        "{page}"
    );
}
