/// @file shapes.hpp
/// One list of shapes for obstacles and rigid bodies alike: a half-space (the ground), a
/// height-field terrain, a sphere, an axis-aligned box, a capsule, a cylinder and a closed
/// triangle mesh, one class each behind one interface. A shape fixed in the world is an
/// obstacle (ContactOptions::obstacles); a shape carried by a rigid body is the body's geometry
/// (RigidBodySpec::shape), placed in its own frame at the origin.
///
/// A shape gives its signed distance d(x) (positive outside, in the free space) with its first
/// and second derivatives, its unit normal with the normal's Jacobian, and a time of impact
/// along a straight motion for the line-search filter; in 2D the first two coordinates are used
/// (y up). The contact energies differentiate through these derivatives (exact to second order,
/// all that gradients, Hessians and the adjoint need). A bounded shape also gives its mass
/// properties (closed forms; a mesh integrated exactly over its polyhedron by the divergence
/// theorem, Eberly, "Polyhedral Mass Properties (Revisited)", 2002), a closed drawing surface,
/// the spheres that represent it against obstacles, and a bounding radius.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

namespace softgrad {

/// Mass, centre of mass and second moments of a solid of uniform density.
struct MassProperties {
  double volume = 0.0;                               ///< [m^3]
  double mass = 0.0;                                 ///< [kg]
  Eigen::Vector3d center = Eigen::Vector3d::Zero();  ///< centre of mass, shape frame [m]
  /// S = integral of rho (X - c)(X - c)^T dV [kg m^2]: the second moment about the centre of
  /// mass (NOT the inertia tensor; the inertia tensor is trace(S) I - S).
  Eigen::Matrix3d second_moment = Eigen::Matrix3d::Zero();
};

class Shape {
 public:
  explicit Shape(std::string name) : name_(std::move(name)) {}
  virtual ~Shape() = default;
  const std::string& name() const { return name_; }
  /// The scene type: "half_space", "height_field", "sphere", "box", "capsule", "cylinder",
  /// "mesh".
  virtual const char* type() const = 0;
  /// @throws InputError "<type> '<name>': <what is wrong>" (or "<type>: ..." unnamed) if the
  /// shape is invalid in `dim` dimensions.
  virtual void validate(int dim) const = 0;

  /// False for a triangle mesh, which is a rigid body's geometry only (no signed distance yet).
  virtual bool has_distance() const { return true; }
  /// Signed distance at x (dim coordinates) [m].
  virtual double distance(const double* x, int dim) const = 0;
  /// The distance's gradient g (dim values) and Hessian H (dim x dim, row-major) at x.
  virtual void distance_derivatives(const double* x, int dim, double* g, double* H) const = 0;
  /// The unit normal n into the free space at x and, if J is non-null, its Jacobian
  /// J = dn/dx (dim x dim, row-major).
  virtual void normal(const double* x, int dim, double* n, double* J = nullptr) const = 0;
  /// The largest t in [0, 1] such that x + s dx stays outside for s < t (1 if it never
  /// enters): exact for the closed-form shapes, bisection for height fields.
  virtual double time_of_impact(const double* x, const double* dx, int dim) const = 0;

  /// The mass properties of the shape filled with `density` [kg/m^3].
  /// @throws InputError as validate(3), for a density that is not positive and finite, and
  /// for an unbounded shape (a half-space or height field has no mass).
  virtual MassProperties mass_properties(double density) const;
  /// A closed triangle surface for drawing, counter-clockwise seen from outside: a mesh
  /// itself; a box's 8 corners and 12 triangles; a sphere, capsule or cylinder as a surface of
  /// revolution with `resolution` segments around its y axis. The vertices lie on the surface,
  /// so a curved shape's polyhedron is slightly inside it.
  /// @throws InputError as mass_properties, and for a resolution below 3 (curved shapes).
  virtual void surface_mesh(int resolution, Eigen::MatrixXd& V, Eigen::MatrixXi& F) const;
  /// The spheres that represent the shape against obstacles: a sphere: its centre with its
  /// radius; a capsule: its two end-sphere centres with its radius; a box: its 8 corners with
  /// radius 0; a cylinder: spheres of its radius on its axis and points on its two rims; a
  /// mesh: its vertices with radius 0.
  /// @throws InputError as mass_properties.
  virtual void contact_spheres(std::vector<Eigen::Vector3d>& centers,
                               std::vector<double>& radii) const;
  /// The largest distance of the shape's surface from the origin of its frame [m].
  /// @throws InputError as mass_properties.
  virtual double bounding_radius() const;

 private:
  std::string name_;
};

/// A shape fixed in the world, met by contact.
using Obstacle = Shape;

/// The free side of a plane: d = (x - point) . normal. Unbounded.
class HalfSpace final : public Shape {
 public:
  /// `normal` is the unit normal into the free space.
  HalfSpace(std::string name, const Eigen::Vector3d& point, const Eigen::Vector3d& normal);
  const char* type() const override { return "half_space"; }
  void validate(int dim) const override;
  double distance(const double* x, int dim) const override;
  void distance_derivatives(const double* x, int dim, double* g, double* H) const override;
  void normal(const double* x, int dim, double* n, double* J = nullptr) const override;
  double time_of_impact(const double* x, const double* dx, int dim) const override;
  const Eigen::Vector3d& point() const { return point_; }
  const Eigen::Vector3d& unit_normal() const { return normal_; }

 private:
  Eigen::Vector3d point_, normal_;
};

/// The space above a terrain y = h(x, z) (h(x) in 2D), bilinear on a grid: origin (x0, z0),
/// spacing, heights row-major [iz * nx + ix]; beyond the grid the edge cells extend.
/// d = (y - h) / sqrt(1 + |grad h|^2), the normal that of the surface. Unbounded.
class HeightField final : public Shape {
 public:
  struct Grid {
    double x0 = 0.0, z0 = 0.0, spacing = 1.0;
    int nx = 0, nz = 1;
    std::vector<double> heights;
  };
  HeightField(std::string name, Grid grid);
  const char* type() const override { return "height_field"; }
  void validate(int dim) const override;
  double distance(const double* x, int dim) const override;
  void distance_derivatives(const double* x, int dim, double* g, double* H) const override;
  void normal(const double* x, int dim, double* n, double* J = nullptr) const override;
  double time_of_impact(const double* x, const double* dx, int dim) const override;
  /// Height h and slopes (hx, hz) of the terrain at (x, z).
  void height(double x, double z, int dim, double& h, double& hx, double& hz) const;
  const Grid& grid() const { return grid_; }

 private:
  Grid grid_;
};

/// A ball (a disk in 2D): d = |x - center| - radius.
class Sphere final : public Shape {
 public:
  Sphere(std::string name, const Eigen::Vector3d& center, double radius);
  const char* type() const override { return "sphere"; }
  void validate(int dim) const override;
  double distance(const double* x, int dim) const override;
  void distance_derivatives(const double* x, int dim, double* g, double* H) const override;
  void normal(const double* x, int dim, double* n, double* J = nullptr) const override;
  double time_of_impact(const double* x, const double* dx, int dim) const override;
  MassProperties mass_properties(double density) const override;
  void surface_mesh(int resolution, Eigen::MatrixXd& V, Eigen::MatrixXi& F) const override;
  void contact_spheres(std::vector<Eigen::Vector3d>& centers,
                       std::vector<double>& radii) const override;
  double bounding_radius() const override;
  const Eigen::Vector3d& center() const { return center_; }
  double radius() const { return radius_; }

 private:
  Eigen::Vector3d center_;
  double radius_;
};

/// An axis-aligned box (a rectangle in 2D), exact signed distance.
class Box final : public Shape {
 public:
  Box(std::string name, const Eigen::Vector3d& center, const Eigen::Vector3d& half_extents);
  const char* type() const override { return "box"; }
  void validate(int dim) const override;
  double distance(const double* x, int dim) const override;
  void distance_derivatives(const double* x, int dim, double* g, double* H) const override;
  void normal(const double* x, int dim, double* n, double* J = nullptr) const override;
  double time_of_impact(const double* x, const double* dx, int dim) const override;
  MassProperties mass_properties(double density) const override;
  void surface_mesh(int resolution, Eigen::MatrixXd& V, Eigen::MatrixXi& F) const override;
  void contact_spheres(std::vector<Eigen::Vector3d>& centers,
                       std::vector<double>& radii) const override;
  double bounding_radius() const override;
  const Eigen::Vector3d& center() const { return center_; }
  const Eigen::Vector3d& half_extents() const { return half_extents_; }

 private:
  Eigen::Vector3d center_, half_extents_;
};

/// A capsule: the points within `radius` of a segment along the local y axis, `length` long
/// between its end-sphere centres and centred at `center` (a stadium in 2D):
/// d = |x - s(x)| - radius, s(x) the segment's point nearest x. Its second derivatives are
/// (I - n n^T) / |x - s| beyond the ends and (I - n n^T - e_y e_y^T) / |x - s| beside the
/// segment (the distance does not change along the axis there).
class Capsule final : public Shape {
 public:
  Capsule(std::string name, const Eigen::Vector3d& center, double length, double radius);
  const char* type() const override { return "capsule"; }
  /// @throws InputError naming the shape unless the radius is positive and finite and the
  /// length finite and >= 0 (0: a sphere).
  void validate(int dim) const override;
  double distance(const double* x, int dim) const override;
  void distance_derivatives(const double* x, int dim, double* g, double* H) const override;
  void normal(const double* x, int dim, double* n, double* J = nullptr) const override;
  double time_of_impact(const double* x, const double* dx, int dim) const override;
  MassProperties mass_properties(double density) const override;
  void surface_mesh(int resolution, Eigen::MatrixXd& V, Eigen::MatrixXi& F) const override;
  void contact_spheres(std::vector<Eigen::Vector3d>& centers,
                       std::vector<double>& radii) const override;
  double bounding_radius() const override;
  const Eigen::Vector3d& center() const { return center_; }
  double length() const { return length_; }
  double radius() const { return radius_; }

 private:
  /// r = x - s(x) (dim values; r[1] = 0 beside the segment); true beside the segment.
  bool offset(const double* x, int dim, double* r) const;

  Eigen::Vector3d center_;
  double length_, radius_;
};

/// A solid cylinder along the local y axis, `length` between its flat faces, centred at
/// `center` (a rectangle of half extents (radius, length / 2) in 2D). With rho the distance
/// from the axis and q = (rho - radius, |y| - length / 2): d = |max(q, 0)| outside and
/// max(q_1, q_2) inside; its derivatives follow by the chain rule through rho and |y|.
class Cylinder final : public Shape {
 public:
  Cylinder(std::string name, const Eigen::Vector3d& center, double length, double radius);
  const char* type() const override { return "cylinder"; }
  /// @throws InputError naming the shape unless the radius and length are positive and finite.
  void validate(int dim) const override;
  double distance(const double* x, int dim) const override;
  void distance_derivatives(const double* x, int dim, double* g, double* H) const override;
  void normal(const double* x, int dim, double* n, double* J = nullptr) const override;
  double time_of_impact(const double* x, const double* dx, int dim) const override;
  MassProperties mass_properties(double density) const override;
  void surface_mesh(int resolution, Eigen::MatrixXd& V, Eigen::MatrixXi& F) const override;
  /// Spheres of the radius on the axis from one face to the other, 2 * radius apart at most,
  /// the outer ones touching the faces (when the cylinder is at least as long as it is wide),
  /// and 16 points of radius 0 on each rim: it rolls on the spheres and stands on the rims.
  void contact_spheres(std::vector<Eigen::Vector3d>& centers,
                       std::vector<double>& radii) const override;
  double bounding_radius() const override;
  const Eigen::Vector3d& center() const { return center_; }
  double length() const { return length_; }
  double radius() const { return radius_; }

 private:
  Eigen::Vector3d center_;
  double length_, radius_;
};

/// A closed triangle mesh of uniform density, counter-clockwise seen from outside: a rigid
/// body's geometry (it has no signed distance yet, so it is not an obstacle).
class TriangleMesh final : public Shape {
 public:
  /// V: n x 3 vertices [m]; F: m x 3 triangles.
  TriangleMesh(std::string name, Eigen::MatrixXd V, Eigen::MatrixXi F);
  const char* type() const override { return "mesh"; }
  /// @throws InputError naming what is wrong: no vertices or triangles, not 3 columns, a
  /// non-finite vertex, an index out of range, a degenerate triangle (repeated vertex or zero
  /// area), an edge not shared by exactly two triangles with opposite orientations (open,
  /// non-manifold or inconsistently oriented), or a non-positive enclosed volume (the
  /// triangles face inward).
  void validate(int dim) const override;
  bool has_distance() const override { return false; }
  /// The distance family throws std::logic_error: callers check has_distance().
  double distance(const double* x, int dim) const override;
  void distance_derivatives(const double* x, int dim, double* g, double* H) const override;
  void normal(const double* x, int dim, double* n, double* J = nullptr) const override;
  double time_of_impact(const double* x, const double* dx, int dim) const override;
  MassProperties mass_properties(double density) const override;
  void surface_mesh(int resolution, Eigen::MatrixXd& V, Eigen::MatrixXi& F) const override;
  void contact_spheres(std::vector<Eigen::Vector3d>& centers,
                       std::vector<double>& radii) const override;
  double bounding_radius() const override;
  const Eigen::MatrixXd& vertices() const { return V_; }
  const Eigen::MatrixXi& triangles() const { return F_; }

 private:
  Eigen::MatrixXd V_;
  Eigen::MatrixXi F_;
};

}  // namespace softgrad
