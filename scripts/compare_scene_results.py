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


def common_blocks(b, h, values, names, sizes):
    """The head's values of `values` restricted to the base's parameter blocks, in the base's
    order, where the head selects more blocks (parameters newer than the base); the head's
    values as they are otherwise."""
    if b.get(names) == h.get(names) or sizes not in h:
        return h.get(values)
    offsets, at = {}, 0
    for name, size in zip(h[names], h[sizes]):
        offsets[name] = (at, size)
        at += size
    if any(name not in offsets for name in b[names]):
        return None  # a block of the base's that the head lacks: no comparison
    return [v for name in b[names]
            for v in h[values][offsets[name][0]:offsets[name][0] + offsets[name][1]]]


def main(base_dir, head_dir):
    base = {key(r): r for r in json.load(open(f"{base_dir}/results.json"))}
    head = {key(r): r for r in json.load(open(f"{head_dir}/results.json"))}
    worst = 0.0
    new_parameters = []
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
        blocks = {"gradient": ("parameters", "parameter_sizes"),
                  "checkpointed_gradient": ("parameters", "parameter_sizes"),
                  "tangent_gradient": ("tangent_parameters", "tangent_parameter_sizes")}
        grads = [(b[k], common_blocks(b, h, k, *blocks[k])) for k in blocks if k in b]
        added = [n for n in h.get("parameters", []) if n not in b.get("parameters", [])]
        if added:
            new_parameters.append(f"{name}: {', '.join(added)}")
        exact = b["loss"] == h["loss"] and all(x == y for x, y in grads)
        d_grad = 0.0 if exact else max([relative([b["loss"]], [h["loss"]])] +
                                        [relative(x, y or []) for x, y in grads])
        text = lambda d: "bitwise" if d == 0.0 else f"{d:.2e} relative"
        print(f"{name:28} {text(d_states):>22} {newton:>7} {text(d_grad):>22}")
        worst = max(worst, d_states, d_grad)
    if new_parameters:
        print("parameters only the head has (compared on the base's blocks alone):")
        for line in new_parameters:
            print(f"  {line}")
    print(f"largest relative difference: {worst:.3g} (bar {TOLERANCE:g})")
    return 0 if worst <= TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
