//! A real Slurm, not a parser: a single-node cluster on localhost (Debian's
//! `slurm-wlm`: munge, slurmctld and slurmd with a generated `slurm.conf`
//! and eight stand-in GPUs), and the scripts the kit generates submitted to
//! it with `sbatch`:
//! - the plain script runs its job and writes the run report, which
//!   `gpuplan ledger import` accepts;
//! - the walltime is enforced, and the killed job still writes its report;
//! - the requeue variant is signalled by Slurm at its `--signal` lead time,
//!   saves, requeues itself and resumes from its checkpoint to the end;
//! - the multi-GPU script's headers are accepted by `sbatch --test-only`,
//!   and a request the node cannot meet is refused.
//!
//! The daemons are stopped at the end, pass or fail. Where the machine
//! cannot run them (no `slurm-wlm`, not root) the test says so and skips;
//! `scripts/test.sh` (and so CI) sets `GPUPLAN_REQUIRE_SLURM=1`, under which
//! it never skips.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use gpuplan_core::report::RunReport;
use gpuplan_core::scripts::{self, LaunchSpec, SlurmSpec};

use crate::common;

/// Ports of this test's cluster, away from a real Slurm's 6817/6818.
const CTLD_PORT: u16 = 16_817;
const SLURMD_PORT: u16 = 16_818;

fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("the command starts")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn found(bin: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {bin}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// Why this machine cannot run a cluster, if it cannot.
fn unable() -> Option<String> {
    let missing: Vec<&str> = [
        "slurmctld",
        "slurmd",
        "sbatch",
        "scontrol",
        "squeue",
        "scancel",
        "munged",
        "munge",
        "mknod",
    ]
    .into_iter()
    .filter(|b| !found(b))
    .collect();
    if !missing.is_empty() {
        return Some(format!(
            "{} not installed (scripts/setup.sh installs slurm-wlm and munge)",
            missing.join(", ")
        ));
    }
    let uid = run(Command::new("id").arg("-u"));
    if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
        return Some("slurmd runs jobs as root here; run the tests as root".into());
    }
    None
}

/// The cluster; dropping it stops the daemons.
struct Cluster {
    dir: PathBuf,
    conf: PathBuf,
    started_munged: bool,
}

impl Cluster {
    fn start() -> Cluster {
        let dir = std::env::temp_dir().join(format!("gpuplan-slurm-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for sub in ["state", "spool", "dev", "jobs"] {
            std::fs::create_dir_all(dir.join(sub)).expect("cluster folders");
        }
        // slurmd accepts only character devices as GPU files: eight nodes
        // that behave like /dev/null stand in for the cards.
        for i in 0..8 {
            let dev = dir.join(format!("dev/nvidia{i}"));
            let o = run(Command::new("mknod").arg(&dev).args(["c", "1", "3"]));
            assert!(o.status.success(), "mknod: {}", text(&o));
        }
        let host = String::from_utf8_lossy(&run(Command::new("hostname").arg("-s")).stdout)
            .trim()
            .to_owned();
        let d = dir.display();
        let conf = dir.join("slurm.conf");
        std::fs::write(
            &conf,
            format!(
                "ClusterName=gpuplantest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={CTLD_PORT}
SlurmdPort={SLURMD_PORT}
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
GresTypes=gpu
ReturnToService=2
# The node claims sixteen CPUs whatever the machine has (config_overrides),
# so a multi-GPU script's CPUs per task fit: the jobs here are stand-ins.
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
SlurmUser=root
SlurmdUser=root
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
KillWait=5
OverTimeLimit=0
InactiveLimit=0
MinJobAge=600
SlurmdParameters=config_overrides
NodeName={host} NodeAddr=127.0.0.1 CPUs=16 RealMemory=3000 Gres=gpu:8 State=UNKNOWN
PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"
            ),
        )
        .expect("slurm.conf");
        std::fs::write(
            dir.join("gres.conf"),
            format!("AutoDetect=off\nName=gpu File={d}/dev/nvidia[0-7]\n"),
        )
        .expect("gres.conf");
        // munge authenticates the daemons and the clients; the system's
        // munged is used (started here if it is not running).
        let running = run(Command::new("pgrep").args(["-x", "munged"]))
            .status
            .success();
        if !running {
            let o = run(Command::new("sh").args([
                "-c",
                "mkdir -p /run/munge && chown munge:munge /run/munge && su -s /bin/sh munge -c /usr/sbin/munged",
            ]));
            assert!(o.status.success(), "munged starts: {}", text(&o));
        }
        let cluster = Cluster {
            dir,
            conf,
            started_munged: !running,
        };
        for daemon in ["slurmctld", "slurmd"] {
            let o = run(Command::new(daemon).arg("-f").arg(&cluster.conf));
            assert!(o.status.success(), "{daemon} starts: {}", text(&o));
        }
        let t = Instant::now();
        loop {
            let o = cluster.cmd("sinfo", &["-h", "-o", "%T"]);
            let state = text(&o);
            if state.trim() == "idle" {
                break;
            }
            assert!(
                t.elapsed() < Duration::from_secs(60),
                "the node never became idle ({state}); slurmd.log:\n{}",
                cluster.log("slurmd.log")
            );
            std::thread::sleep(Duration::from_millis(500));
        }
        cluster
    }

    fn cmd(&self, bin: &str, args: &[&str]) -> Output {
        run(Command::new(bin).args(args).env("SLURM_CONF", &self.conf))
    }

    fn log(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(name)).unwrap_or_default()
    }

    /// Submits `script` (extra sbatch options first) from `workdir`, with
    /// the stand-in nvidia-smi; returns the job id.
    fn submit(&self, workdir: &Path, script: &Path, options: &[&str]) -> String {
        let o = run(Command::new("sbatch")
            .arg("--parsable")
            .arg(format!("--chdir={}", workdir.display()))
            .args(options)
            .arg(script)
            .env("SLURM_CONF", &self.conf)
            .env("GPUPLAN_NVIDIA_SMI", self.dir.join("nvidia-smi")));
        assert!(o.status.success(), "sbatch accepts it: {}", text(&o));
        String::from_utf8_lossy(&o.stdout).trim().to_owned()
    }

    fn job(&self, id: &str) -> String {
        text(&self.cmd("scontrol", &["show", "job", "-o", id]))
    }

    /// Waits until the job is in one of `states`; returns its record.
    fn wait(&self, id: &str, states: &[&str], limit: Duration) -> String {
        let t = Instant::now();
        loop {
            let rec = self.job(id);
            if states
                .iter()
                .any(|s| rec.contains(&format!("JobState={s} ")))
            {
                return rec;
            }
            assert!(
                t.elapsed() < limit,
                "job {id} not {states:?} after {limit:?}: {rec}\nslurmctld.log:\n{}",
                self.log("slurmctld.log")
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // Stop slurmctld and slurmd, and munged if this test started it.
        let _ = self.cmd("scontrol", &["shutdown"]);
        // The daemons write their PIDs where slurm.conf says: wait for those
        // two processes to end, then end whichever did not.
        let pids: Vec<String> = ["slurmctld.pid", "slurmd.pid"]
            .iter()
            .filter_map(|f| std::fs::read_to_string(self.dir.join(f)).ok())
            .map(|p| p.trim().to_owned())
            .filter(|p| p.parse::<u32>().is_ok())
            .collect();
        let alive = |pid: &String| run(Command::new("kill").args(["-0", pid])).status.success();
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(20) && pids.iter().any(alive) {
            std::thread::sleep(Duration::from_millis(250));
        }
        for pid in pids.iter().filter(|p| alive(p)) {
            let _ = run(Command::new("kill").args(["-9", pid]));
        }
        // munged writes its PID where it was started: end that one process.
        if self.started_munged {
            if let Some(pid) = std::fs::read_to_string("/run/munge/munged.pid")
                .ok()
                .and_then(|p| p.trim().parse::<u32>().ok())
            {
                let _ = run(Command::new("kill").arg(pid.to_string()));
            }
        }
    }
}

/// A training stand-in: `epochs` epochs of one second each, resuming from
/// its checkpoint file, saving and exiting 0 on SIGUSR1 or SIGTERM as the
/// kit's resumable template does.
const TRAIN: &str = r#"#!/bin/bash
epochs=$1
start=0
[ -f ckpt.txt ] && start=$(cat ckpt.txt)
[ "$start" -gt 0 ] && echo "resumed from epoch $start"
stop=0
trap 'stop=1' USR1 TERM
for ((e = start + 1; e <= epochs; e++)); do
  sleep 1 &
  wait $!
  echo "Epoch $e/$epochs"
  echo "$e" > ckpt.txt
  if [ "$stop" = 1 ]; then echo "checkpoint saved at epoch $e"; exit 0; fi
done
echo "training done"
"#;

fn reports(dir: &Path) -> Vec<RunReport> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("job folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("gpuplan-run-") && n.ends_with(".json"))
        })
        .collect();
    names.sort();
    names
        .iter()
        .map(|p| {
            let body = std::fs::read_to_string(p).expect("report");
            RunReport::from_json(&p.display().to_string(), &body).expect("a valid run report")
        })
        .collect()
}

/// A one-GPU script of `command` on the test partition (the unit tests in
/// `scripts` use it too).
pub(crate) fn spec(job: &str, command: &str, requeue: bool) -> SlurmSpec {
    SlurmSpec {
        job_name: job.into(),
        partition: "gpu".into(),
        gpus: 1,
        cpus: 1,
        mem_gb: 1,
        hours: 0.5,
        cap_hours: None,
        output: "%x-%j.out".into(),
        activate: Vec::new(),
        command: command.into(),
        requeue,
        plan: "slurm e2e".into(),
        plan_job: String::new(),
        platform: "campus-slurm".into(),
    }
}

#[test]
fn the_generated_slurm_scripts_run_on_a_real_slurm() {
    if let Some(why) = unable() {
        assert!(
            std::env::var("GPUPLAN_REQUIRE_SLURM").as_deref() != Ok("1"),
            "GPUPLAN_REQUIRE_SLURM=1 but this machine cannot run Slurm: {why}"
        );
        eprintln!("SKIPPED: a real Slurm cannot run here: {why}");
        return;
    }
    let cluster = Cluster::start();
    common::executable(
        &cluster.dir.join("nvidia-smi"),
        &common::nvidia_smi_script("NVIDIA GeForce RTX 3090", "550.54.14", &[7000]),
    );
    let job_dir = |name: &str| {
        let d = cluster.dir.join("jobs").join(name);
        std::fs::create_dir_all(&d).expect("job folder");
        common::executable(&d.join("train.sh"), TRAIN);
        d
    };
    let write = |dir: &Path, spec: &SlurmSpec| {
        let script = scripts::slurm(spec).expect("script");
        let path = dir.join(&script.file_name);
        std::fs::write(&path, &script.text).expect("write");
        path
    };

    // 1. The plain script: the job runs to the end and writes its report.
    let done = job_dir("done");
    let s = write(&done, &spec("done", "./train.sh 3", false));
    let id = cluster.submit(&done, &s, &[]);
    // 2. The walltime is enforced (one minute here, set on the command line
    //    over the script's own).
    let long = job_dir("walltime");
    let s = write(&long, &spec("walltime", "./train.sh 600", false));
    let long_id = cluster.submit(&long, &s, &["--time=1"]);
    // 3. The requeue variant with a two-minute walltime and the signal 100 s
    //    before it: Slurm signals it about 20 s in.
    let rq = job_dir("requeue");
    let s = write(&rq, &spec("requeue", "./train.sh 40", true));
    let rq_id = cluster.submit(&rq, &s, &["--time=2", "--signal=B:USR1@100"]);

    let rec = cluster.wait(&id, &["COMPLETED", "FAILED"], Duration::from_secs(120));
    assert!(
        rec.contains("JobState=COMPLETED"),
        "the job completes: {rec}"
    );
    let r = reports(&done);
    assert_eq!(r.len(), 1, "one run, one report");
    let r = &r[0];
    assert_eq!(r.exit_status, 0, "the report says it succeeded");
    assert_eq!(
        (r.progress_lines, r.last_progress.as_str()),
        (3, "Epoch 3"),
        "the progress lines of the job's log are counted"
    );
    assert_eq!(
        (
            r.gpu_name.as_str(),
            r.shown_peak_mib(),
            r.platform.as_str(),
            r.plan.as_str()
        ),
        (
            "NVIDIA GeForce RTX 3090",
            Some(7000),
            "campus-slurm",
            "slurm e2e"
        ),
        "the card, its memory, the platform and the plan"
    );
    let log = std::fs::read_to_string(done.join(format!("done-{id}.out"))).unwrap_or_default();
    assert!(
        log.contains("training done"),
        "the job's output is in its log: {log}"
    );
    let home = cluster.dir.join("home");
    let report_file = std::fs::read_dir(&done)
        .expect("folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .expect("the report file");
    let o = run(Command::new(common::gpuplan_binary())
        .args(["ledger", "import", "--cost", "0"])
        .arg(&report_file)
        .env("GPUPLAN_HOME", &home));
    assert!(
        o.status.success(),
        "gpuplan ledger import takes a Slurm report: {}",
        text(&o)
    );

    let rec = cluster.wait(
        &long_id,
        &["TIMEOUT", "COMPLETED", "FAILED", "CANCELLED"],
        Duration::from_secs(180),
    );
    assert!(
        rec.contains("JobState=TIMEOUT"),
        "Slurm ends the job at its walltime: {rec}"
    );
    let r = reports(&long);
    assert_eq!(
        r.len(),
        1,
        "the job killed at its walltime still wrote its report"
    );
    assert!(
        r[0].exit_status != 0,
        "and says it did not finish: {}",
        r[0].exit_status
    );
    assert!(
        (55..=150).contains(&r[0].wall_seconds),
        "about one minute of the one-minute walltime: {}",
        r[0].wall_seconds
    );

    // The requeue: signalled, saved, requeued; Slurm holds a requeued job
    // for a while before it may start again, which the test shortens.
    let t = Instant::now();
    loop {
        let rec = cluster.job(&rq_id);
        if rec.contains("Restarts=1") {
            let _ = cluster.cmd(
                "scontrol",
                &["update", &format!("jobid={rq_id}"), "starttime=now"],
            );
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(150),
            "the requeue variant was never requeued: {rec}\n{}",
            std::fs::read_to_string(rq.join(format!("requeue-{rq_id}.out"))).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    let rec = cluster.wait(
        &rq_id,
        &["COMPLETED", "FAILED", "TIMEOUT"],
        Duration::from_secs(240),
    );
    let log = std::fs::read_to_string(rq.join(format!("requeue-{rq_id}.out"))).unwrap_or_default();
    assert!(
        rec.contains("JobState=COMPLETED"),
        "the resumed job completes: {rec}\n{log}"
    );
    assert!(
        log.contains("checkpoint saved at epoch"),
        "the signal reached training, which saved: {log}"
    );
    assert!(
        log.contains("requeueing job"),
        "the script requeued the job: {log}"
    );
    assert!(
        log.contains("resumed from epoch"),
        "the second run resumed from the checkpoint: {log}"
    );
    assert!(log.contains("Epoch 40/40"), "and ran to the end: {log}");
    let mut r = reports(&rq);
    assert_eq!(r.len(), 2, "a report for each part of the requeued job");
    assert!(
        r.iter().all(|x| x.exit_status == 0),
        "both parts exited cleanly: {:?}",
        r.iter().map(|x| x.exit_status).collect::<Vec<_>>()
    );
    r.sort_by_key(|x| x.part);
    assert_eq!(
        r.iter()
            .map(|x| (x.run_id.as_str(), x.part, x.requeued))
            .collect::<Vec<_>>(),
        vec![(rq_id.as_str(), 1, true), (rq_id.as_str(), 2, false)],
        "one run in two parts: the job id, part numbers from Slurm's restart count, the first marked requeued"
    );

    // 4. The multi-GPU script's headers: accepted for four GPUs on the
    //    node, refused for more GPUs than it has.
    let multi = job_dir("multi");
    let launch = |gpus: u32| LaunchSpec {
        job_name: "multi".into(),
        command: "python train.py".into(),
        gpus,
        engine: gpuplan_core::parallel::Engine::Ddp,
        offload: false,
        batch: 64,
        precision: gpuplan_core::job::Precision::Bf16Amp,
    };
    for (gpus, ok, why) in [
        (4, true, "four GPUs on one node fit"),
        (8, true, "all eight fit"),
        (
            16,
            false,
            "sixteen GPUs need two nodes this cluster does not have",
        ),
    ] {
        let script = scripts::slurm_multigpu(&launch(gpus), "gpu", 1.0, 1, None).expect("script");
        let path = multi.join(format!("multi-{gpus}.sbatch"));
        std::fs::write(&path, &script.text).expect("write");
        let o = run(Command::new("sbatch")
            .arg("--test-only")
            .arg(format!("--chdir={}", multi.display()))
            .arg("--mem=1G")
            .arg(&path)
            .env("SLURM_CONF", &cluster.conf));
        assert_eq!(o.status.success(), ok, "{why}: {}", text(&o));
        if ok {
            assert!(text(&o).contains("to start at"), "{why}: {}", text(&o));
        }
    }
}
