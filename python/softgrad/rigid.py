"""Rigid bodies' poses and velocities, and joints' coordinates, on every state of a trajectory.

A rigid body is an affine body (softgrad.RigidBody says how): its state is the centre of mass p
and a matrix A whose columns are three of the scene's vertices, kept a rotation by a stiff
energy. Here, for each state:

- position: p [m], the centre of mass;
- rotation: the shape's orientation in the world, R = polar(A) principal_axes^T (3 x 3; the
  rotation the scene gives the shape, at rest), polar(A) the rotation nearest A (A itself up
  to the energy's strain, about force / rigidity);
- quaternion: R as (w, x, y, z), w >= 0;
- velocity: p' [m/s];
- angular_velocity: omega [rad/s] in the world, the skew part of A' A^T.

Trajectory.rigid_body(name) and Trajectory.joint(name) give them (both also take an index).
"""

from typing import NamedTuple

import numpy as _np


class BodyMotion(NamedTuple):
    """A rigid body's motion on the states of a trajectory (see the module's text): position
    (T + 1, 3), rotation (T + 1, 3, 3), quaternion (T + 1, 4) as (w, x, y, z), velocity
    (T + 1, 3), angular_velocity (T + 1, 3)."""

    position: _np.ndarray
    rotation: _np.ndarray
    quaternion: _np.ndarray
    velocity: _np.ndarray
    angular_velocity: _np.ndarray


class JointMotion(NamedTuple):
    """A hinge's angle [rad] or a slider's displacement [m] (0 at rest) and its rate, on the
    states of a trajectory: coordinate (T + 1,), speed (T + 1,)."""

    coordinate: _np.ndarray
    speed: _np.ndarray


def nearest_rotation(A):
    """The rotations nearest the matrices A (..., 3, 3) in the Frobenius norm (polar
    decomposition by SVD)."""
    U, _, Vt = _np.linalg.svd(A)
    D = _np.ones(A.shape[:-1])
    D[..., -1] = _np.sign(_np.linalg.det(U @ Vt))
    return (U * D[..., None, :]) @ Vt


def quaternion(R):
    """Unit quaternions (w, x, y, z), w >= 0, of rotation matrices R (..., 3, 3)."""
    R = _np.asarray(R, dtype=float)
    m = R.reshape(-1, 3, 3)
    q = _np.empty((len(m), 4))
    for k, r in enumerate(m):
        t = _np.trace(r)
        # The largest of w, x, y, z first, for accuracy.
        i = _np.argmax([t, r[0, 0], r[1, 1], r[2, 2]])
        if i == 0:
            s = 2 * _np.sqrt(1 + t)
            q[k] = [s / 4, (r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s,
                    (r[1, 0] - r[0, 1]) / s]
        elif i == 1:
            s = 2 * _np.sqrt(1 + r[0, 0] - r[1, 1] - r[2, 2])
            q[k] = [(r[2, 1] - r[1, 2]) / s, s / 4, (r[0, 1] + r[1, 0]) / s,
                    (r[0, 2] + r[2, 0]) / s]
        elif i == 2:
            s = 2 * _np.sqrt(1 + r[1, 1] - r[0, 0] - r[2, 2])
            q[k] = [(r[0, 2] - r[2, 0]) / s, (r[0, 1] + r[1, 0]) / s, s / 4,
                    (r[1, 2] + r[2, 1]) / s]
        else:
            s = 2 * _np.sqrt(1 + r[2, 2] - r[0, 0] - r[1, 1])
            q[k] = [(r[1, 0] - r[0, 1]) / s, (r[0, 2] + r[2, 0]) / s,
                    (r[1, 2] + r[2, 1]) / s, s / 4]
    q[q[:, 0] < 0] *= -1
    return q.reshape(R.shape[:-2] + (4,))


def _body(scene, body):
    bodies = scene.rigid_bodies
    if not bodies:
        raise ValueError("rigid_body: the scene has no rigid bodies")
    if isinstance(body, bool):
        raise ValueError("rigid_body: a body is named by its name or index, not by a bool")
    if hasattr(body, "__index__"):  # int, numpy integers
        body = body.__index__()
        if not 0 <= body < len(bodies):
            raise ValueError(f"rigid_body: index {body} is not in 0..{len(bodies) - 1}")
        return bodies[body]
    for b in bodies:
        if b.name == body:
            return b
    names = ", ".join(repr(b.name) for b in bodies) or "none"
    raise ValueError(f"rigid_body: the scene has no rigid body {body!r}; it has {names}")


def rigid_body(trajectory, scene, body):
    """BodyMotion of rigid body `body` (a name or an index) of `scene` on every state of
    `trajectory`."""
    b = _body(scene, body)
    A = trajectory.sensor("body_axes", b.index).reshape(-1, 3, 3).transpose(0, 2, 1)
    R = nearest_rotation(A) @ b.principal_axes.T
    return BodyMotion(position=trajectory.sensor("body_position", b.index),
                      rotation=R, quaternion=quaternion(R),
                      velocity=trajectory.sensor("body_velocity", b.index),
                      angular_velocity=trajectory.sensor("body_angular_velocity", b.index))


def joint(trajectory, joint):
    """JointMotion of a hinge or slider (a name or an index) on every state of `trajectory`."""
    return JointMotion(coordinate=trajectory.sensor("joint_position", joint)[:, 0],
                       speed=trajectory.sensor("joint_velocity", joint)[:, 0])


def trajectory_rigid_body(self, body):
    """BodyMotion of a rigid body (its name or index) on every state: position, rotation,
    quaternion, velocity and angular velocity (softgrad.rigid says how they are defined)."""
    return rigid_body(self, self.scene, body)


def trajectory_joint(self, name):
    """JointMotion of a hinge or slider (its name or index) on every state: the coordinate (the
    angle [rad] or displacement [m], 0 at rest) and its speed."""
    return joint(self, name)
