"""Rigid bodies from Python against closed forms: a free spin (constant angular velocity, the
orientation turning at it, the centre moving at its velocity) and a pendulum on a hinge (its
angle against the pendulum equation), each converging at first order in the step as backward
Euler must; joints' coordinates; sensors; the body list and its errors."""

import math

import numpy as np
import pytest

import softgrad
import softgrad.rigid


def rot_z(angle):
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def spin_scene(dt, duration=0.4, omega=3.0):
    return {
        "name": "spin", "dim": 3, "time": {"dt": dt, "duration": duration},
        "gravity": [0, 0, 0], "solver": {"newton_tolerance": 1e-12},
        "rigid_bodies": [{"name": "box", "shape": {"type": "box", "size": [0.3, 0.1, 0.1]},
                          "density": 1000, "position": [0.1, 0.2, 0.3],
                          "rotation": {"axis": [0, 0, 1], "angle": 0.4},
                          "velocity": [0.5, 0, -0.2], "angular_velocity": [0, 0, omega]}],
    }


def spin_errors(dt, omega=3.0):
    scene = softgrad.load(spin_scene(dt, omega=omega))
    t = scene.simulate(scene.rollout())
    m = t.rigid_body("box")
    times = dt * np.arange(t.steps + 1)
    # Closed form: p = p0 + v t, R = Rz(omega t) Rz(0.4), omega and p' constant.
    p = np.array([0.1, 0.2, 0.3]) + np.outer(times, [0.5, 0, -0.2])
    R = np.stack([rot_z(omega * s + 0.4) for s in times])
    assert np.abs(m.position - p).max() < 1e-9
    assert np.abs(m.velocity - [0.5, 0, -0.2]).max() < 1e-9
    return (np.abs(m.rotation - R).max(), np.abs(m.angular_velocity - [0, 0, omega]).max(), m)


def test_a_free_spin_turns_at_its_angular_velocity_to_first_order_in_the_step():
    e_rot, e_omega, m = spin_errors(0.004)
    e_rot2, e_omega2, _ = spin_errors(0.002)
    # At rest: the scene's rotation, and a unit quaternion for it (w, x, y, z).
    assert np.allclose(m.rotation[0], rot_z(0.4), atol=1e-12)
    assert np.allclose(m.quaternion[0], [math.cos(0.2), 0, 0, math.sin(0.2)], atol=1e-12)
    assert np.allclose(np.linalg.norm(m.quaternion, axis=1), 1.0)
    # Backward Euler's error: small, and halved with the step.
    assert e_rot < 0.02 and e_omega < 0.05
    assert 1.7 < e_rot / e_rot2 < 2.3 and 1.7 < e_omega / e_omega2 < 2.3


def pendulum_scene(dt, theta0, duration=1.0):
    L = 0.4  # a thin box hanging from a hinge at the origin, released at theta0
    centre = rot_z(theta0) @ [0, -L / 2, 0]
    return {
        "name": "pendulum", "dim": 3, "time": {"dt": dt, "duration": duration},
        "solver": {"newton_tolerance": 1e-11},
        "rigid_bodies": [{"name": "rod", "shape": {"type": "box", "size": [0.02, L, 0.02]},
                          "density": 1000, "position": centre.tolist(),
                          "rotation": {"axis": [0, 0, 1], "angle": theta0}}],
        "joints": [{"name": "pivot", "type": "hinge", "parent": "world", "child": "rod",
                    "anchor": [0, 0, 0], "axis": [0, 0, 1]}],
    }, L


def pendulum_errors(dt, theta0=0.3):
    from scipy.integrate import solve_ivp

    scene_dict, L = pendulum_scene(dt, theta0)
    scene = softgrad.load(scene_dict)
    body = scene.rigid_bodies[0]
    # I about the pivot: the principal moment about z (S1 + S2 in the body frame, whose axes
    # may be any permutation of the box's) plus m d^2.
    S = np.array(body.second_moments)
    axes = np.array(body.principal_axes)
    k = int(np.argmax(np.abs(axes[2])))  # the principal axis along z
    I_z = S.sum() - S[k]
    I = I_z + body.mass * (L / 2) ** 2
    w2 = body.mass * 9.81 * (L / 2) / I
    t = scene.simulate(scene.rollout())
    m = t.rigid_body("rod")
    angle = np.arctan2(m.rotation[:, 1, 0], m.rotation[:, 0, 0])
    times = dt * np.arange(t.steps + 1)
    exact = solve_ivp(lambda _, y: [y[1], -w2 * math.sin(y[0])], (0, times[-1]), [theta0, 0],
                      t_eval=times, rtol=1e-12, atol=1e-12).y[0]
    q = t.joint("pivot")
    # The joint's coordinate is the angle from the rest (initial) pose.
    assert np.abs(q.coordinate - (angle - theta0)).max() < 1e-6
    assert np.abs(q.speed - m.angular_velocity[:, 2]).max() < 1e-3 * math.sqrt(w2) * theta0 + 1e-6
    return np.abs(angle - exact).max(), angle, exact


def test_a_pendulum_on_a_hinge_follows_the_pendulum_equation_to_first_order_in_the_step():
    e1, angle, exact = pendulum_errors(0.004)
    e2, _, _ = pendulum_errors(0.002)
    assert angle.min() < -0.25  # it swings through the bottom to the other side
    assert e1 < 0.03
    assert 1.6 < e1 / e2 < 2.4


def test_rigid_bodies_joints_and_sensors_from_python():
    scene = softgrad.load(pendulum_scene(0.01, 0.3, duration=0.05)[0])
    (rod,) = scene.rigid_bodies
    assert rod.name == "rod" and rod.index == 0 and not rod.kinematic
    assert rod.mass == pytest.approx(1000 * 0.02 * 0.4 * 0.02)
    assert rod.vertices == [scene.n_mesh_vertices + k for k in range(4)]
    assert scene.masses[rod.vertices[0]] == pytest.approx(rod.mass)
    assert scene.joints == [{"name": "pivot", "type": "hinge", "parent": "world",
                             "child": "rod", "has_coordinate": True}]
    t = scene.simulate(scene.rollout())
    p = t.sensor("body_position", "rod")
    assert p.shape == (6, 3) and np.array_equal(p, t.positions[:, rod.vertices[0]])
    tip = t.sensor("body_point", 0, point=[math.sin(0.3) * 0.4, -math.cos(0.3) * 0.4, 0])
    assert np.abs(np.linalg.norm(tip, axis=1) - 0.4).max() < 1e-5  # on the circle
    run = scene.start(scene.rollout())
    run.step()
    assert np.array_equal(run.sensor("joint_position", "pivot"), t.sensor("joint_position", 0)[1])
    with pytest.raises(ValueError, match="no rigid body 'arm'; it has 'rod'"):
        t.rigid_body("arm")
    with pytest.raises(ValueError, match="no joint 'knee'; it has 'pivot'"):
        t.joint("knee")
    with pytest.raises(ValueError, match="unknown kind 'body_spin'"):
        t.sensor("body_spin", 0)
    with pytest.raises(ValueError, match="takes point="):
        t.sensor("body_point", 0)
    assert np.array_equal(t.sensor("body_position", np.int64(0)), p)  # NumPy integers index
    assert np.array_equal(t.rigid_body(np.int32(0)).position, p)
    with pytest.raises(ValueError, match="not by a bool"):
        t.sensor("body_position", True)
    with pytest.raises(ValueError, match="rigid body index 3 is not in 0..0"):
        t.sensor("body_velocity", 3)
    soft = softgrad.load({"dim": 3, "time": {"dt": 0.01, "duration": 0.01}, "bodies": [
        {"mesh": {"generator": "box", "resolution": [1, 1, 1], "size": [1, 1, 1]},
         "material": {"model": "neo_hookean"}}]})
    ts = soft.simulate(soft.rollout())
    with pytest.raises(ValueError, match="the scene has no rigid bod"):
        ts.rigid_body(0)
    with pytest.raises(ValueError, match="the scene has no joint"):
        ts.sensor("joint_position", 0)


def test_the_quaternion_of_a_rotation_is_its_own():
    rng = np.random.default_rng(0)
    for _ in range(20):
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        angle = rng.uniform(0, math.pi)
        K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
        R = np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K
        q = softgrad.rigid.quaternion(R)
        assert np.allclose(q, [math.cos(angle / 2), *(math.sin(angle / 2) * axis)], atol=1e-12)
