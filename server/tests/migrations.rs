//! The two engines' migrations are kept in step: the same files, the same statements,
//! differing only in the engine's spelling of an auto-increment key, a float and bytes.

use std::path::Path;

fn files(engine: &str) -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../migrations").join(engine);
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let path = e.expect("entry").path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&path).expect("read"))
        })
        .collect();
    out.sort();
    out
}

#[test]
fn sqlite_and_postgres_migrations_match() {
    let (sqlite, postgres) = (files("sqlite"), files("postgres"));
    assert!(!sqlite.is_empty());
    let names = |v: &[(String, String)]| v.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&sqlite), names(&postgres), "the same migrations, in the same order");
    for ((name, lite), (_, pg)) in sqlite.iter().zip(&postgres) {
        let pg = pg
            .replace("BIGSERIAL PRIMARY KEY", "INTEGER PRIMARY KEY AUTOINCREMENT")
            .replace("DOUBLE PRECISION", "REAL")
            .replace("BYTEA", "BLOB");
        assert_eq!(lite, &pg, "{name}: the engines differ beyond key and float spelling");
    }
}
