"""softgrad.train, compare and sysid: what the command line's subcommands give, from Python."""

import csv
import json
import os
import subprocess

import pytest
import softgrad

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXE = os.environ.get("SOFTGRAD_EXE", os.path.join(ROOT, "build", "softgrad"))
BIPED = os.path.join(ROOT, "scenes", "biped_2d.json")
CANTILEVER = os.path.join(ROOT, "scenes", "cantilever_sysid.json")
NOISY = os.path.join(ROOT, "scenes", "data", "cantilever_noisy.csv")


def cli(*args):
    subprocess.run([EXE, *args, "--quiet"], check=True, stdout=subprocess.DEVNULL)


def rows(path):
    with open(path) as f:
        return [{k: v for k, v in r.items() if k != "seconds"} for r in csv.DictReader(f)]


def test_train_gives_the_cli_s_curve_and_summary(tmp_path):
    cli("train", BIPED, "--iterations", "3", "--out", str(tmp_path / "cli"))
    summary = softgrad.train(BIPED, out=str(tmp_path / "py"), iterations=3, quiet=True)
    with open(tmp_path / "cli" / "summary.json") as f:
        expected = json.load(f)
    with open(tmp_path / "py" / "summary.json") as f:
        assert json.load(f) == summary
    for key in ("initial_reward_m", "best_reward_m", "rollout_reward_m", "simulated_steps",
                "best_iteration", "n_parameters", "termination"):
        assert summary[key] == expected[key], key
    assert summary["best_reward_m"] > summary["initial_reward_m"]
    assert rows(tmp_path / "py" / "loss.csv") == rows(tmp_path / "cli" / "loss.csv")
    for name in ("best_controller.json", "best_parameters.txt", "loss.svg", "gait.svg"):
        assert (tmp_path / "py" / name).is_file(), name


def test_train_resumes_from_its_checkpoint_and_accepts_a_loaded_scene(tmp_path):
    scene = softgrad.load(BIPED)
    first = softgrad.train(scene, out=str(tmp_path), iterations=2, quiet=True)
    again = softgrad.train(scene, out=str(tmp_path), iterations=1, resume=True, quiet=True)
    assert again["resumed"] and again["resumed_after"] == 2 and again["total_iterations"] == 3
    assert again["initial_reward_m"] == first["initial_reward_m"]  # one curve, continued
    assert again["best_reward_m"] >= first["best_reward_m"]


def test_compare_gives_the_cli_s_rewards(tmp_path):
    budget = "2000"  # 20 episodes per method: two iterations of PPO's and ES's 8 episodes
    cli("compare", BIPED, "--budget", budget, "--out", str(tmp_path / "cli"))
    summary = softgrad.compare(BIPED, budget=int(budget), out=str(tmp_path / "py"), quiet=True)
    with open(tmp_path / "cli" / "compare.json") as f:
        expected = json.load(f)
    assert [m["method"] for m in summary["methods"]] == [m["method"] for m in expected["methods"]]
    for got, want in zip(summary["methods"], expected["methods"]):
        assert got["best_reward_m"] == want["best_reward_m"], got["method"]
        assert got["steps_used"] == want["steps_used"] > 0, got["method"]
    assert summary["budget_steps"] == 2000
    assert (tmp_path / "py" / "compare.svg").is_file()


def test_sysid_gives_the_cli_s_estimates(tmp_path):
    cli("sysid", CANTILEVER, "--data", NOISY, "--out", str(tmp_path / "cli"))
    report = softgrad.sysid(CANTILEVER, data=NOISY, out=str(tmp_path / "py"), quiet=True)
    with open(tmp_path / "cli" / "report.json") as f:
        expected = json.load(f)
    assert [p["name"] for p in report["parameters"]] == ["youngs", "damping.alpha"]
    for got, want in zip(report["parameters"], expected["parameters"]):
        assert got["estimate"] == want["estimate"] and got["stddev"] == want["stddev"]
    assert report["rms_after"] < 0.25 * report["rms_before"]
    assert (tmp_path / "py" / "fit.svg").is_file()


def test_commands_refuse_bad_input_with_the_cli_s_messages(tmp_path):
    with pytest.raises(ValueError, match="not a control scene"):
        softgrad.train(CANTILEVER, out=str(tmp_path), iterations=1, quiet=True)
    with pytest.raises(ValueError, match="unknown method 'newton'"):
        softgrad.sysid(CANTILEVER, data=NOISY, out=str(tmp_path), method="newton", quiet=True)
    with pytest.raises(ValueError, match="missing.csv"):
        softgrad.sysid(CANTILEVER, data=str(tmp_path / "missing.csv"), out=str(tmp_path),
                       quiet=True)
    with pytest.raises(ValueError, match="budget"):
        softgrad.compare(BIPED, budget=10, out=str(tmp_path), quiet=True)
    with pytest.raises(ValueError, match="exclude each other"):
        softgrad.train(BIPED, out=str(tmp_path), iterations=1, quiet=True, verbose=True)


def test_sigterm_stops_a_run_between_steps_and_keeps_its_output(tmp_path):
    import signal
    import time

    out = tmp_path / "run"
    proc = subprocess.Popen([EXE, "run", os.path.join(ROOT, "scenes", "cantilever.json"),
                             "--out", str(out), "--steps", "100000", "--quiet"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while not list(out.glob("*.vtu"))[1:] and time.time() < deadline:  # two frames written
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    with open(out / "summary.json") as f:
        summary = json.load(f)
    assert summary["status"] == "interrupted"
    assert 0 < summary["steps_completed"] < 100000
    pvd = (out / "cantilever.pvd").read_text()
    assert pvd.rstrip().endswith("</VTKFile>")
    assert pvd.count("<DataSet") == len(list(out.glob("*.vtu")))


def process_cpu_seconds(pid):
    """The CPU time (user + system) process `pid` has used so far, from /proc/PID/stat."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def seconds_to_stop_after_sigterm(proc, wait_until_ready):
    """Sends SIGTERM to `proc` once `wait_until_ready()` returns; the seconds until it ended.
    The process is killed in any case, so that no test leaves one running."""
    import signal
    import time

    try:
        wait_until_ready()
        proc.send_signal(signal.SIGTERM)
        sent = time.monotonic()
        proc.wait(timeout=60)
        return time.monotonic() - sent
    finally:
        proc.kill()


def test_sigterm_stops_a_1e300_amplitude_run_within_a_second(tmp_path):
    """A sine controller of amplitude 1e300 drives the rigid quadruped's motors: the angle wrap
    once spun forever inside a step, where SIGTERM could not stop it."""
    import time

    with open(os.path.join(ROOT, "scenes", "quadruped_rigid.json")) as f:
        scene = json.load(f)
    scene["controller"]["amplitude"] = 1e300
    path = tmp_path / "amplitude.json"
    path.write_text(json.dumps(scene))
    out = tmp_path / "run"
    proc = subprocess.Popen([EXE, "run", str(path), "--out", str(out), "--steps", "1000000",
                             "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 60

    def two_frames_written():
        while not list(out.glob("*.vtu"))[1:] and time.time() < deadline:
            time.sleep(0.05)

    waited = seconds_to_stop_after_sigterm(proc, two_frames_written)
    assert proc.returncode == 143, proc.stderr.read()
    assert waited < 1.0, f"SIGTERM took {waited:.2f} s"
    with open(out / "summary.json") as f:
        assert json.load(f)["status"] == "interrupted"


def test_sigterm_stops_a_run_within_a_long_step(tmp_path):
    """A step of many Newton iterations (~4 s here) ends within a second of SIGTERM: the flag is
    polled at every iteration, not only between steps, and the interrupted step is not taken."""
    import time

    scene = tmp_path / "long_step.json"
    scene.write_text(json.dumps({
        "name": "long_step", "time": {"dt": 5.0, "duration": 5.0}, "gravity": [0, -9.81, 0],
        "solver": {"newton_tolerance": 1e-12, "newton_max_iterations": 500},
        "bodies": [{"mesh": {"generator": "box", "resolution": [60, 10, 10],
                             "size": [6.0, 0.1, 0.1]},
                    "material": {"model": "neo_hookean", "youngs": 2e4, "poisson": 0.3}}],
        "boundary": [{"name": "clamp",
                      "region": {"plane": {"point": [0, 0, 0], "normal": [-1, 0, 0]}}}],
        "output": {"every": 0}}))
    out = tmp_path / "run"
    proc = subprocess.Popen([EXE, "run", str(scene), "--out", str(out), "--verbose"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    def within_the_step():
        proc.stderr.readline()  # the set-up line: the step starts next
        # Into the step by CPU time, not wall time: on a busy machine half a second of wall
        # time once ended before the step began. The step takes ~4 s of CPU; set-up after
        # that line, well under 0.1 s.
        start = process_cpu_seconds(proc.pid)
        while process_cpu_seconds(proc.pid) < start + 1.0 and proc.poll() is None:
            time.sleep(0.02)

    waited = seconds_to_stop_after_sigterm(proc, within_the_step)
    assert proc.returncode == 143, proc.stderr.read()
    assert waited < 1.0, f"SIGTERM took {waited:.2f} s to stop the step"
    with open(out / "summary.json") as f:
        summary = json.load(f)
    assert summary["status"] == "interrupted" and summary["steps_completed"] == 0
    assert summary["message"].startswith("interrupted in step 1"), summary["message"]


def test_ctrl_c_stops_python_training_with_its_files_written(tmp_path):
    import signal
    import sys

    code = ("import softgrad, sys; softgrad.train(sys.argv[1], out=sys.argv[2], iterations=100000)")
    proc = subprocess.Popen([sys.executable, "-c", code, BIPED, str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    for line in proc.stderr:  # progress lines: wait for the second iteration
        if "iteration 2/" in line:
            proc.send_signal(signal.SIGINT)
            break
    err = proc.stderr.read()
    proc.wait(timeout=120)
    assert proc.returncode != 0 and "KeyboardInterrupt" in err
    with open(tmp_path / "summary.json") as f:
        summary = json.load(f)
    assert summary["termination"].startswith("adam: stopped after")
    assert summary["total_iterations"] < 100000
    assert (tmp_path / "loss.csv").is_file() and (tmp_path / "best_controller.json").is_file()


def test_a_sigkilled_training_resumes_with_its_whole_curve(tmp_path):
    # loss.csv was written only at the end: after SIGKILL, --resume continued but the curve
    # before it was gone. It is now rewritten (whole, by rename) after every iteration.
    import signal

    out = tmp_path / "killed"
    proc = subprocess.Popen([EXE, "train", BIPED, "--out", str(out), "--iterations", "100000"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for line in proc.stderr:  # progress lines: kill while the third iteration is under way
        if "iteration 2/" in line:
            proc.send_signal(signal.SIGKILL)
            break
    proc.wait(timeout=120)
    assert proc.returncode == -signal.SIGKILL
    before = rows(out / "loss.csv")
    assert [r["iteration"] for r in before][:2] == ["1", "2"]
    cli("train", BIPED, "--out", str(out), "--iterations", "2", "--resume")
    after = rows(out / "loss.csv")
    # The resumed run continues after the last saved state: every iteration once, in order,
    # the earlier ones unchanged.
    done = len(after) - 2
    assert [r["iteration"] for r in after] == [str(i) for i in range(1, len(after) + 1)]
    assert after[:done] == before[:done] and done >= 1
    cli("train", BIPED, "--out", str(tmp_path / "straight"), "--iterations", str(len(after)))
    assert after == rows(tmp_path / "straight" / "loss.csv")  # the same curve, bit for bit


def test_ctrl_c_interrupts_a_long_simulate_within_a_step(tmp_path):
    # Scene.simulate ran to its last step before Python saw the signal (25.6 s for 60k steps).
    import signal
    import sys
    import time

    code = ("import softgrad, sys; s = softgrad.load(sys.argv[1]); print('ready', flush=True); "
            "s.simulate(s.rollout(steps=1000000))")
    proc = subprocess.Popen([sys.executable, "-c", code,
                             os.path.join(ROOT, "scenes", "cantilever.json")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    try:
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(0.5)  # well into the steps
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=10)
    finally:
        proc.kill()  # never left running (a million steps) if the test fails
    assert time.monotonic() - sent < 1.0
    assert proc.returncode != 0 and "KeyboardInterrupt" in err
