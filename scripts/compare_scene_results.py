"""Compares two outputs of dump_scene_results (see compare_scene_results.sh)."""
import array
import json
import os
import sys

TOLERANCE = 1e-12


def relative(a, b):
    """max |a_i - b_i| / max |a| (0 when both are empty or equal)."""
    if len(a) != len(b):
        return float("inf")
    scale = max([abs(v) for v in a] + [abs(v) for v in b] + [1e-300])
    return max([abs(x - y) for x, y in zip(a, b)] + [0.0]) / scale


def states(path):
    a = array.array("d")
    with open(path, "rb") as f:
        a.frombytes(f.read())
    return a


def key(result):
    """A scene's name: the file's stem for one that failed to load (scenes are named so)."""
    if "scene" in result:
        return result["scene"]
    return os.path.splitext(os.path.basename(result["scene_file"]))[0]


def main(base_dir, head_dir):
    base = {key(r): r for r in json.load(open(f"{base_dir}/results.json"))}
    head = {key(r): r for r in json.load(open(f"{head_dir}/results.json"))}
    worst = 0.0
    print(f"{'scene':28} {'states':>22} {'newton':>7} {'loss/gradients':>22}")
    for name, b in base.items():
        h = head.get(name)
        if h is not None and "error" in b and "error" not in h:
            # A scene the base cannot read (one newer than it): nothing to compare.
            print(f"{name:28} only the head reads it (base: {b['error']})")
            continue
        if h is None or "error" in b or "error" in h:
            same = h is not None and b.get("error") == h.get("error")
            print(f"{name:28} error: {'same' if same else 'DIFFERENT'}")
            worst = worst if same else float("inf")
            continue
        sb = states(os.path.join(base_dir, name + ".states.bin"))
        sh = states(os.path.join(head_dir, name + ".states.bin"))
        d_states = 0.0 if sb.tobytes() == sh.tobytes() else relative(sb, sh)
        newton = "same" if b["newton_iterations"] == h["newton_iterations"] else "DIFF"
        grads = [(b[k], h.get(k)) for k in ("gradient", "checkpointed_gradient", "tangent_gradient")
                 if k in b]
        exact = b["loss"] == h["loss"] and all(x == y for x, y in grads)
        d_grad = 0.0 if exact else max([relative([b["loss"]], [h["loss"]])] +
                                        [relative(x, y or []) for x, y in grads])
        text = lambda d: "bitwise" if d == 0.0 else f"{d:.2e} relative"
        print(f"{name:28} {text(d_states):>22} {newton:>7} {text(d_grad):>22}")
        worst = max(worst, d_states, d_grad)
    print(f"largest relative difference: {worst:.3g} (bar {TOLERANCE:g})")
    return 0 if worst <= TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
