#!/usr/bin/env python3
"""The Windows installer and CLI under Wine; run by scripts/test-windows.sh.

Each check prints one line; the first failure stops the run with its reason.
The Linux CLI built from the same source is the reference: what the Windows
CLI prints must be the same bytes. See docs/installers.md.
"""

import argparse
import json
import os
import random
import re
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
USER = "张三"  # the Wine user: a Chinese name in every profile path
WEBVIEW2_KEY = r"HKCU\Software\Microsoft\EdgeUpdate\Clients\{F3017226-FE2A-4295-8BDF-00C3A9A7E4C5}"
UNINSTALL_KEY = r"HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\gpuplan"
OWN_KEY = r"HKCU\Software\gpuplan"
USER_PATH_BEFORE = r"C:\tools\bin;C:\Program Files\Some Tool"

args = None
work = None
env = None
prefix = None


def fail(msg):
    print(f"FAILED: {msg}", flush=True)
    sys.exit(1)


def ok(msg):
    print(f"   ok: {msg}", flush=True)


def step(msg):
    print(f"-- {msg}", flush=True)


def capture(argv, cwd, e, timeout=120):
    """Runs argv with its output in files, not pipes: the first Wine program
    of a session starts Wine's own background processes, which inherit its
    output handles and would keep a pipe open long after it ended."""
    with tempfile.TemporaryFile() as o, tempfile.TemporaryFile() as r:
        p = subprocess.run(argv, cwd=cwd, env=e, stdout=o, stderr=r, stdin=subprocess.DEVNULL,
                           timeout=timeout)
        o.seek(0)
        r.seek(0)
        return subprocess.CompletedProcess(argv, p.returncode, o.read(), r.read())


def wine(*argv, cwd=None, extra_env=None, check=True, timeout=120):
    e = dict(env)
    if extra_env:
        e.update(extra_env)
    p = capture(["wine", *argv], cwd or ROOT, e, timeout)
    if check and p.returncode != 0:
        fail(f"wine {' '.join(map(str, argv))} exited {p.returncode}\n{p.stderr.decode(errors='replace')}")
    return p


def wineserver(*flags):
    subprocess.run(["wineserver", *flags], env=env, check=False,
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def warm():
    """A persistent wineserver with Wine's background processes started
    (their output to /dev/null), so each run after it starts fast."""
    wineserver("-p")
    subprocess.run(["wine", "cmd", "/c", "exit"], env=env, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, timeout=120)


def unix(win_path):
    """The Unix path of a C:\\ path in the prefix."""
    assert win_path[:3].upper() == "C:\\", win_path
    return prefix / "drive_c" / win_path[3:].replace("\\", "/")


def win(unix_path):
    """A Unix path outside the prefix as Wine's Z: drive sees it."""
    return "Z:" + str(unix_path).replace("/", "\\")


def reg_values(key):
    """The values of a registry key ({} when it is missing), via reg export."""
    out = work / "export.reg"
    for _ in range(3):  # reg.exe under Wine now and then exits before writing: retry
        out.unlink(missing_ok=True)
        p = wine("reg", "query", key, check=False)
        if p.returncode != 0:
            return {}
        wine("reg", "export", key, win(out), "/y", check=False)
        if out.exists() and out.stat().st_size > 0:
            break
    else:
        fail(f"reg export {key} wrote nothing")
    text = out.read_bytes().decode("utf-16").replace("\r\n", "\n")
    text = re.sub(r"\\\n\s*", "", text)  # hex values continue on the next line
    values = {}
    for m in re.finditer(r'^"([^"]+)"=(?:"((?:[^"\\]|\\.)*)"|(.*))$', text, re.M):
        raw = m.group(2)
        if raw is not None:
            values[m.group(1)] = raw.replace("\\\\", "\\").replace('\\"', '"')
        else:
            v = m.group(3)
            if v.startswith("hex(2):"):  # REG_EXPAND_SZ, UTF-16LE bytes
                b = bytes(int(x, 16) for x in re.findall(r"[0-9a-f]{2}", v[7:]))
                values[m.group(1)] = b.decode("utf-16-le").rstrip("\0")
            else:
                values[m.group(1)] = v
    return values


def installer_layout():
    """What installer.nsi says it installs: its File lines, the uninstaller
    and the shortcut, relative to $INSTDIR or $SMPROGRAMS."""
    nsi = (ROOT / "packaging/windows/installer.nsi").read_text(encoding="utf-8")
    files = re.findall(r'^\s*File "\$\{SRCDIR\}\\([^"]+)"', nsi, re.M)
    files += re.findall(r'^\s*WriteUninstaller "\$INSTDIR\\([^"]+)"', nsi, re.M)
    links = [l.replace("${PRODUCT}", "gpuplan")
             for l in re.findall(r'^\s*CreateShortCut "\$SMPROGRAMS\\([^"]+)"', nsi, re.M)]
    install_dir = re.search(r'^InstallDir "\$LOCALAPPDATA\\([^"]+)"', nsi, re.M).group(1)
    return sorted(files), links, install_dir.replace("${PRODUCT}", "gpuplan")


def main():
    global args, work, env, prefix
    ap = argparse.ArgumentParser()
    for a in ("--setup", "--zip", "--stage", "--linux-cli", "--shim"):
        ap.add_argument(a, required=True)
    args = ap.parse_args()
    work = Path(os.environ["GPUPLAN_WINE_WORK"])
    prefix = work / "prefix"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUPLAN_")}
    # HOME too: Wine links the profile's Desktop, Documents, ... to $HOME.
    (work / "home").mkdir()
    env.update(WINEPREFIX=str(prefix), HOME=str(work / "home"), WINEDEBUG="-all", WINEDLLOVERRIDES="mscoree,mshtml=",
               USER=USER, LOGNAME=USER, LANG="C.UTF-8", LC_ALL="C.UTF-8")
    stage = Path(args.stage)
    linux_cli = Path(args.linux_cli)
    setup = Path(args.setup)
    zip_path = Path(args.zip)
    timings = {}

    step(f"a fresh Wine prefix for user {USER}")
    t0 = time.monotonic()
    subprocess.run(["wineboot", "-i"], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True, timeout=300)
    wineserver("-w")
    profile_win = f"C:\\users\\{USER}"
    if not unix(profile_win).is_dir():
        fail(f"the prefix has no profile folder {profile_win}")
    (prefix / "drive_c/windows/system32/bcryptprimitives.dll").write_bytes(Path(args.shim).read_bytes())
    wine("reg", "add", r"HKCU\Environment", "/v", "Path", "/t", "REG_EXPAND_SZ", "/d", USER_PATH_BEFORE, "/f")
    ok(f"prefix ready in {time.monotonic() - t0:.0f} s (the ProcessPrng stand-in in system32)")

    step(f"silent install: {setup.name} /S")
    files, links, install_rel = installer_layout()
    instdir_win = f"{profile_win}\\AppData\\Local\\{install_rel}"
    instdir = unix(instdir_win)
    startmenu = unix(f"{profile_win}\\AppData\\Roaming\\Microsoft\\Windows\\Start Menu\\Programs")
    wine(str(setup), "/S")
    wineserver("-w")
    found = sorted(p.name for p in instdir.iterdir()) if instdir.is_dir() else []
    if found != files:
        fail(f"{instdir_win} holds {found}, the script installs {files}")
    for f in files:
        if f != "uninstall.exe" and (instdir / f).read_bytes() != (stage / f).read_bytes():
            fail(f"installed {f} differs from the built one")
    ok(f"{instdir_win}: {', '.join(files)}")
    for link in links:
        if not (startmenu / link).is_file():
            fail(f"no Start-menu shortcut {link}")
    ok(f"Start menu: {', '.join(links)}")
    u = reg_values(UNINSTALL_KEY)
    version = re.search(r"gpuplan_([^_]+)_x64-setup", setup.name).group(1)
    if u.get("DisplayVersion") != version or u.get("InstallLocation") != instdir_win:
        fail(f"uninstall entry is {u}")
    if u.get("UninstallString") != f'"{instdir_win}\\uninstall.exe"':
        fail(f"UninstallString is {u.get('UninstallString')}")
    ok("Apps & features entry (HKCU, no admin rights)")
    own = reg_values(OWN_KEY)
    if own.get("WebView2AtInstall", None) != "":
        fail(f"WebView2 is missing here, the installer found {own}")
    ok("the installer saw that WebView2 is missing (and went on: the CLI needs none)")
    path_now = reg_values(r"HKCU\Environment").get("Path")
    if path_now != f"{USER_PATH_BEFORE};{instdir_win}":
        fail(f"user PATH after install is {path_now!r}")
    ok("the install folder appended to the user's PATH, the rest kept")

    step("reinstall over it, with a WebView2 runtime registered")
    wine("reg", "add", WEBVIEW2_KEY, "/v", "pv", "/d", "131.0.2903.70", "/f")
    wine(str(setup), "/S")
    wineserver("-w")
    if reg_values(OWN_KEY).get("WebView2AtInstall") != "131.0.2903.70":
        fail("the installer did not find the registered WebView2 runtime")
    if reg_values(r"HKCU\Environment").get("Path") != f"{USER_PATH_BEFORE};{instdir_win}":
        fail("a reinstall changed PATH again")
    wine("reg", "delete", WEBVIEW2_KEY, "/f")
    ok("found its version; PATH not doubled")

    exe = str(instdir / "gpuplan.exe")

    def wcli(*a, **kw):
        return wine(exe, *a, **kw)

    def lcli(*a, home, check=True):
        e = dict(env, GPUPLAN_HOME=str(home))
        p = capture([str(linux_cli), *a], ROOT, e, 60)
        if check and p.returncode != 0:
            fail(f"linux gpuplan {a} exited {p.returncode}: {p.stderr.decode(errors='replace')}")
        return p

    step("every README example with the installed gpuplan.exe, the data home left to %APPDATA%")
    winbin = work / "winbin"
    winbin.mkdir()
    (winbin / "gpuplan").write_text(f'#!/bin/sh\nexec wine "{exe}" "$@"\n')
    (winbin / "gpuplan").chmod(0o755)
    linux_home = work / "linux-home"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    examples, in_block = [], False
    for line in readme.splitlines():
        if line.strip().startswith("```"):
            in_block = not in_block
        elif in_block and line.strip().startswith("gpuplan "):
            examples.append(line.strip())
    warm()  # keep the server up between the many short runs
    for cmd in examples:
        lw = capture(["sh", "-c", cmd], ROOT, dict(env, PATH=f"{winbin}:{env['PATH']}"))
        ll = capture(["sh", "-c", cmd], ROOT,
                     dict(env, PATH=f"{linux_cli.parent}:{env['PATH']}", GPUPLAN_HOME=str(linux_home)))
        if lw.returncode != 0 or not lw.stdout:
            fail(f"{cmd}: exit {lw.returncode}\n{lw.stderr.decode(errors='replace')}")
        if b"\r" in lw.stdout:
            fail(f"{cmd}: CR in the output")
        if lw.stdout != ll.stdout:
            fail(f"{cmd}: Windows and Linux print differently\n--- windows\n{lw.stdout.decode(errors='replace')}\n--- linux\n{ll.stdout.decode(errors='replace')}")
    ok(f"{len(examples)} examples, each printing exactly what the Linux CLI prints")
    appdata_win = f"{profile_win}\\AppData\\Roaming"
    db = unix(f"{appdata_win}\\app.gpuplan.desktop\\gpuplan.db")
    if not db.is_file():
        fail(f"no database in %APPDATA% ({appdata_win}\\app.gpuplan.desktop)")
    ok(f"the database is in %APPDATA%\\app.gpuplan.desktop ({appdata_win})")
    p = wine("cmd", "/c", "echo %APPDATA%")
    shown = p.stdout.strip().decode(errors="replace").replace(USER, "").replace("?", "")
    if shown != appdata_win.replace(USER, ""):  # cmd's echo may not spell the name
        fail(f"%APPDATA% is {p.stdout!r}")

    step("paths with backslashes, spaces and Chinese; CRLF plan files")
    plans_win = f"{profile_win}\\My Plans\\计划 一"
    unix(plans_win).mkdir(parents=True)
    lf = (ROOT / "examples/seed003-autodl-resnet50.toml").read_bytes()
    crlf = lf.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    unix(plans_win + "\\plan 1.toml").write_bytes(crlf)
    plan_win = plans_win + "\\plan 1.toml"
    home_win = f"{profile_win}\\我的 文档\\gpuplan 数据"
    whome = {"GPUPLAN_HOME": home_win}
    reference = lcli("--lang", "zh", "quote", "examples/seed003-autodl-resnet50.toml", home=linux_home).stdout
    for shown, path in (("backslashes, spaces, Chinese, CRLF", plan_win),
                        ("relative, backslashes", "examples\\seed003-autodl-resnet50.toml")):
        q = wcli("--lang", "zh", "quote", path, extra_env=whome)
        if q.stdout != reference:
            fail(f"quote of {path} differs from the Linux quote of the LF file")
        ok(f"quote {shown}: same bill as on Linux")
    imp = wcli("plans", "import", plan_win, extra_env=whome)
    listed = wcli("plans", "list", "--json", extra_env=whome)
    rows = json.loads(listed.stdout)
    if len(rows) != 1:
        fail(f"plans list after one import: {rows}")
    out_win = plans_win + "\\exported plan.toml"
    wcli("plans", "export", str(rows[0]["id"]), "--out", out_win, extra_env=whome)
    if b"\r" in unix(out_win).read_bytes():
        fail("the exported plan file has CRLF line ends")
    if wcli("--lang", "zh", "quote", out_win, extra_env=whome).stdout != reference:
        fail("the exported plan quotes differently")
    if not unix(home_win + "\\gpuplan.db").is_file():
        fail(f"GPUPLAN_HOME={home_win}: no gpuplan.db there")
    ok(f"GPUPLAN_HOME={home_win}: plan imported, listed, exported (LF) and quoted again ({imp.stdout.decode().strip()})")
    missing = f"{profile_win}\\no such folder\\plan.toml"
    e = wcli("quote", missing, extra_env=whome, check=False)
    if e.returncode != 2 or missing.encode() not in e.stderr:
        fail(f"a missing plan: exit {e.returncode}, stderr {e.stderr.decode(errors='replace')!r}")
    ok(f"a missing plan file: exit 2 and the message names {missing}")

    step("the kit's scripts stay LF on Windows (they run on the Linux rental machine)")
    kinds = [
        ["script", "shutdown", "--platform", "autodl", "--command", "python train.py", "--plan", plan_win],
        ["script", "slurm", "--job-name", "resnet50", "--gpus", "2", "--command", "python train.py", "--plan", plan_win],
        ["script", "probe"],
        ["script", "offline-install"],
        ["script", "resume", "--plan", plan_win],
    ]
    # The same plan on two GPUs, for the multi-GPU launchers.
    multi_lf = lf.replace(b"[job]\nhours = 6\n", b'[job]\nhours = 6\nmodel = "resnet50"\nbatch = 256\ngpus = 2\n')
    if multi_lf == lf:
        fail("the seed plan's [job] changed: the two-GPU variant needs updating")
    (work / "multi.toml").write_bytes(multi_lf)
    multi_win = plans_win + "\\plan 2 gpus.toml"
    unix(multi_win).write_bytes(multi_lf.replace(b"\n", b"\r\n"))
    for config in ("launch", "accelerate", "slurm"):
        kinds.append(["script", "launch", "--plan", multi_win, "--command", "python train.py", "--config", config])
    lf_plan = ROOT / "examples/seed003-autodl-resnet50.toml"
    linux_path = {plan_win: str(lf_plan), multi_win: str(work / "multi.toml")}
    for k in kinds:
        w = wcli(*k, extra_env=whome)
        l = lcli(*[linux_path.get(a, a) for a in k], home=linux_home)
        if b"\r" in w.stdout:
            fail(f"{' '.join(k[:2])}: CR in the script")
        if w.stdout != l.stdout:
            fail(f"{' '.join(k[:2])}: the Windows CLI writes a different script than the Linux one")
    # Through cmd's redirection into a file, as a student would save it.
    # (A batch file: cmd /c with quotes inside its one argument is mangled.)
    (instdir / "save.bat").write_bytes(
        b'@gpuplan.exe script shutdown --platform autodl --command "python train.py" > run.sh\r\n')
    wine("cmd", "/c", "save.bat", cwd=instdir, extra_env=whome)
    saved = (instdir / "run.sh").read_bytes()
    (instdir / "run.sh").unlink()
    (instdir / "save.bat").unlink()
    if b"\r" in saved or not saved.startswith(b"#!"):
        fail("the script saved through cmd > run.sh has CR or no #! line")
    subprocess.run(["bash", "-n"], input=saved, check=True)
    ok(f"{len(kinds)} scripts byte-identical to Linux, no CR; cmd's > keeps them LF; bash -n accepts them")

    step("UTF-8 and GBK consoles (chcp 65001 and 936, a real console through a pty)")
    piped = wcli("--lang", "zh", "models").stdout.decode("utf-8")

    def console(cp, command):
        c = f"wine cmd /c 'chcp {cp} >nul & {command}'"
        p = capture(["script", "-qec", c, "/dev/null"], instdir, env)
        text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", p.stdout.decode("utf-8", errors="replace"))
        return "\n".join(l.rstrip() for l in text.replace("\r", "").split("\n")).strip()

    want = "\n".join(l.rstrip() for l in piped.split("\n")).strip()
    for cp in (65001, 936):
        got = console(cp, "gpuplan.exe --lang zh models")
        if got != want:
            fail(f"code page {cp}: the console shows\n{got[:400]}\nnot\n{want[:400]}")
    probe = instdir / "utf8.txt"
    probe.write_bytes("显卡\r\n".encode())
    garbled = console(936, "type utf8.txt")
    probe.unlink()
    if garbled == "显卡":
        fail("the console check cannot tell: raw UTF-8 bytes also read right under code page 936")
    ok("the same Chinese text in both (UTF-16 to the console); raw UTF-8 bytes under 936 would read "
       f"{garbled!r}, so the check can tell")

    step("the SQLite store, killed mid-write under Wine")
    crash_win = f"{profile_win}\\crash test"
    chome = {"GPUPLAN_HOME": crash_win}
    completed, killed = 0, 0
    rng = random.Random(24)
    e = dict(env, GPUPLAN_HOME=crash_win)
    runs = 16
    for i in range(runs):
        # A plan of its own each time: the same file twice is one saved plan.
        crash_plan = f"{plans_win}\\crash {i}.toml"
        unix(crash_plan).write_bytes(crlf.replace(b'name = "', f'name = "crash {i}: '.encode(), 1))
        proc = subprocess.Popen(["wine", exe, "plans", "import", crash_plan], env=e, cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if i % 2 == 1:
            # Within the run: the Windows CLI takes about 70 ms here.
            time.sleep(rng.uniform(0.01, 0.08))
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
                killed += 1
            proc.wait()
            if proc.returncode == 0:
                completed += 1
        else:
            if proc.wait(timeout=60) != 0:
                fail("a plan import failed after an earlier one was killed")
            completed += 1
    rows = json.loads(wcli("plans", "list", "--json", extra_env=chome).stdout)
    if killed < 3:
        fail(f"only {killed} of {runs} imports were killed before they ended: the check proves little")
    if not completed <= len(rows) <= completed + killed:
        fail(f"{len(rows)} plans saved: {completed} imports finished, {killed} killed")
    for r in rows:
        if wcli("plans", "show", str(r["id"]), extra_env=chome).stdout.count(b"[job]") != 1:
            fail(f"saved plan {r['id']} reads back damaged")
    wineserver("-k")
    wineserver("-w")
    con = sqlite3.connect(unix(crash_win + "\\gpuplan.db"))
    check = con.execute("PRAGMA integrity_check").fetchone()[0]
    con.close()
    if check != "ok":
        fail(f"integrity_check: {check}")
    ok(f"{killed} of {runs} imports killed (SIGKILL) mid-run, {completed} finished: {len(rows)} plans saved, "
       "each whole; the next import and every read work; integrity_check ok")

    step("gpuplan-app.exe without WebView2 (the web view itself cannot run under Wine)")
    app = str(instdir / "gpuplan-app.exe")
    app_err = tempfile.TemporaryFile()
    proc = subprocess.Popen(["wine", app], env=env, cwd=ROOT, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=app_err)
    title = "gpuplan: Microsoft Edge WebView2"
    seen = None
    for _ in range(60):
        if proc.poll() is not None:
            break
        tree = subprocess.run(["xwininfo", "-root", "-tree"], capture_output=True).stdout.decode(errors="replace")
        if title in tree:
            seen = tree
            time.sleep(1)
            shot = ROOT / "e2e/screenshots/windows-webview2-missing.png"
            shot.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(["import", "-window", "root", str(shot)], check=False)
            break
        time.sleep(0.5)
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    app_err.seek(0)
    err = app_err.read()
    if not seen:
        fail(f"no '{title}' message box; exit {proc.returncode}; stderr {err.decode(errors='replace')[-2000:]}")
    said = err.decode("utf-8", errors="replace")
    catalog = {lang: json.loads((ROOT / f"data/locales/{lang}.json").read_text(encoding="utf-8"))["app"]["webview2Missing"]
               for lang in ("zh", "en")}
    for lang, text in catalog.items():
        if text.split("{{")[0] not in said:
            fail(f"the message lacks its {lang} text: {said[-2000:]}")
    if "https://go.microsoft.com/fwlink/p/?LinkId=2124703" not in said:
        fail(f"the message does not give the bootstrapper's address: {err.decode(errors='replace')[-2000:]}")
    ok(f"it shows a message box '{title}' (both languages, the bootstrapper's address; "
       "also on stderr) instead of crashing")

    # Run without /S, the installer opens on its language page (简体中文 / English).
    setup_proc = subprocess.Popen(["wine", str(setup)], env=env, cwd=ROOT, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    shown = False
    for _ in range(60):
        tree = subprocess.run(["xwininfo", "-root", "-tree"], capture_output=True).stdout.decode(errors="replace")
        if '"Installer Language"' in tree:
            shown = True
            time.sleep(1)
            subprocess.run(["import", "-window", "root", str(ROOT / "e2e/screenshots/windows-installer-language.png")],
                           check=False)
            break
        time.sleep(0.5)
    setup_proc.kill()
    if not shown:
        fail("the installer, run by hand, shows no language page")
    ok("run by hand, the installer opens on its language page")
    wineserver("-k")
    wineserver("-w")

    step("the portable zip")
    with zipfile.ZipFile(zip_path) as z:
        names = sorted(z.namelist())
        if names != sorted(["gpuplan-app.exe", "gpuplan.exe", "WebView2Loader.dll"]):
            fail(f"the zip holds {names}")
        portable = unix("C:\\工具\\gpuplan portable")
        portable.mkdir(parents=True)
        z.extractall(portable)
    for n in names:
        if (portable / n).read_bytes() != (stage / n).read_bytes():
            fail(f"{n} in the zip differs from the built one")
    q = wine(str(portable / "gpuplan.exe"), "--lang", "zh", "quote", plan_win, extra_env=whome)
    if q.stdout != reference:
        fail("the portable gpuplan.exe quotes differently")
    ok(f"{', '.join(names)}; runs from C:\\工具\\gpuplan portable")

    step("start time of the README quote example, wineserver warm (medians of 21)")
    warm()
    quote = ["--lang", "en", "quote", "examples/seed003-autodl-resnet50.toml"]

    def median_ms(argv, e):
        quiet = dict(stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        for _ in range(3):
            subprocess.run(argv, cwd=ROOT, env=e, **quiet)
        times = []
        for _ in range(21):
            t = time.perf_counter()
            subprocess.run(argv, cwd=ROOT, env=e, **quiet)
            times.append((time.perf_counter() - t) * 1000)
        return statistics.median(times)

    timings["windows"] = median_ms(["wine", exe, *quote], dict(env, GPUPLAN_HOME=crash_win))
    timings["linux"] = median_ms([str(linux_cli), *quote], dict(env, GPUPLAN_HOME=str(linux_home)))
    ok(f"Windows CLI under Wine {timings['windows']:.0f} ms, Linux CLI {timings['linux']:.1f} ms")
    wineserver("-k")
    wineserver("-w")

    step("silent uninstall")
    wine(str(instdir / "uninstall.exe"), "/S")
    wineserver("-w")  # the uninstaller runs from a copy in %TEMP%: wait for it
    if instdir.exists():
        fail(f"{instdir_win} is still there: {list(instdir.iterdir())}")
    for link in links:
        if (startmenu / link).exists():
            fail(f"the shortcut {link} is still there")
    if reg_values(UNINSTALL_KEY) or reg_values(OWN_KEY):
        fail("registry keys left behind")
    path_after = reg_values(r"HKCU\Environment").get("Path")
    if path_after != USER_PATH_BEFORE:
        fail(f"user PATH after uninstall is {path_after!r}, was {USER_PATH_BEFORE!r}")
    if not db.is_file():
        fail("the uninstaller removed the user's database")
    ok("files, shortcut, registry keys and the PATH entry removed; the user's database kept")

    sizes = {p.name: p.stat().st_size for p in (setup, zip_path)}
    report = (f"setup {sizes[setup.name]} bytes, zip {sizes[zip_path.name]} bytes, "
              f"quote median: windows/wine {timings['windows']:.1f} ms, linux {timings['linux']:.1f} ms")
    (stage.parent / "measured.txt").write_text(report + "\n")
    print(f"== windows: all checks passed ({report})", flush=True)


if __name__ == "__main__":
    main()
