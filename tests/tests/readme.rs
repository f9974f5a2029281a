//! Every `gpuplan …` example in the README runs, in both of its languages'
//! sections, from the repository root with only what the repository ships
//! (the plan files and the example `config.json` are in `examples/`).

use crate::common;

#[test]
fn every_readme_example_runs() {
    let root = crate::common::root();
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README");
    let bin = common::gpuplan_binary();
    let bin_dir = bin.parent().expect("binary folder");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let home = tempfile::tempdir().expect("tmp home");
    let home = home.path();
    let mut in_block = false;
    let mut ran = 0;
    for line in readme.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        let cmd = line.trim();
        if !in_block || !cmd.starts_with("gpuplan ") {
            continue;
        }
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(cmd)
            .current_dir(&root)
            .env("PATH", &path)
            .env("GPUPLAN_HOME", home)
            .output()
            .expect("sh runs");
        assert!(
            out.status.success(),
            "README example fails: {cmd}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !out.stdout.is_empty(),
            "README example prints something: {cmd}"
        );
        ran += 1;
    }
    assert!(ran >= 16, "both languages' examples ran ({ran})");
}

#[test]
fn the_readme_counts_the_zoo_and_the_catalog_as_they_are() {
    let readme = std::fs::read_to_string(crate::common::root().join("README.md")).expect("README");
    let models = common::zoo().entries().len();
    let cards = common::catalog().gpus().len();
    type Case = (String, &'static str);
    // (the phrase with today's count, why)
    let cases: [Case; 4] = [
        (
            format!("等 {models} 个模型"),
            "the Chinese section's model count",
        ),
        (
            format!("{cards} 张显卡"),
            "the Chinese section's card count",
        ),
        (
            format!("({models} in the zoo:"),
            "the English section's model count",
        ),
        (
            format!("the {cards} catalog cards"),
            "the English section's card count",
        ),
    ];
    for (phrase, why) in cases {
        assert!(readme.contains(&phrase), "{why}: README lacks `{phrase}`");
    }
}
