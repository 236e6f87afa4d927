/// @file obstacles.hpp
/// Analytic obstacles for contact: a half-space (the ground), a sphere, an axis-aligned box, a
/// capsule and a height-field terrain, one class each behind a small interface. An obstacle gives
/// its signed distance d(x) (positive outside, in the free space) with its first and second
/// derivatives, its unit normal with the normal's Jacobian, and a time of impact along a
/// straight motion for the line-search filter. In 2D the first two coordinates are used (y up).
/// The contact energies differentiate through these derivatives (they are exact to second
/// order, all that gradients, Hessians and the adjoint need).
#pragma once

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

namespace softgrad {

class Obstacle {
 public:
  explicit Obstacle(std::string name) : name_(std::move(name)) {}
  virtual ~Obstacle() = default;
  const std::string& name() const { return name_; }
  /// The scene type: "half_space", "sphere", "box", "capsule", "height_field".
  virtual const char* type() const = 0;
  /// @throws InputError naming the obstacle if its shape is invalid in `dim` dimensions.
  virtual void validate(int dim) const = 0;

  /// Signed distance at x (dim coordinates) [m].
  virtual double distance(const double* x, int dim) const = 0;
  /// The distance's gradient g (dim values) and Hessian H (dim x dim, row-major) at x.
  virtual void distance_derivatives(const double* x, int dim, double* g, double* H) const = 0;
  /// The unit normal n into the free space at x and, if J is non-null, its Jacobian
  /// J = dn/dx (dim x dim, row-major).
  virtual void normal(const double* x, int dim, double* n, double* J = nullptr) const = 0;
  /// The largest t in [0, 1] such that x + s dx stays outside for s < t (1 if it never
  /// enters): exact for half-spaces, spheres, boxes and capsules, bisection for height fields.
  virtual double time_of_impact(const double* x, const double* dx, int dim) const = 0;

 private:
  std::string name_;
};

/// The free side of a plane: d = (x - point) . normal.
class HalfSpace final : public Obstacle {
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

/// The outside of a ball (a disk in 2D): d = |x - center| - radius.
class Sphere final : public Obstacle {
 public:
  Sphere(std::string name, const Eigen::Vector3d& center, double radius);
  const char* type() const override { return "sphere"; }
  void validate(int dim) const override;
  double distance(const double* x, int dim) const override;
  void distance_derivatives(const double* x, int dim, double* g, double* H) const override;
  void normal(const double* x, int dim, double* n, double* J = nullptr) const override;
  double time_of_impact(const double* x, const double* dx, int dim) const override;

 private:
  Eigen::Vector3d center_;
  double radius_;
};

/// The outside of an axis-aligned box (a rectangle in 2D), exact signed distance.
class Box final : public Obstacle {
 public:
  Box(std::string name, const Eigen::Vector3d& center, const Eigen::Vector3d& half_extents);
  const char* type() const override { return "box"; }
  void validate(int dim) const override;
  double distance(const double* x, int dim) const override;
  void distance_derivatives(const double* x, int dim, double* g, double* H) const override;
  void normal(const double* x, int dim, double* n, double* J = nullptr) const override;
  double time_of_impact(const double* x, const double* dx, int dim) const override;

 private:
  Eigen::Vector3d center_, half_extents_;
};

/// The outside of a capsule: the points within `radius` of a segment along the local y axis,
/// `length` long between its end-sphere centres and centred at `center` (a stadium in 2D):
/// d = |x - s(x)| - radius, s(x) the segment's point nearest x. Its second derivatives are
/// (I - n n^T) / |x - s| beyond the ends and (I - n n^T - e_y e_y^T) / |x - s| beside the
/// segment (the distance does not change along the axis there).
class Capsule final : public Obstacle {
 public:
  Capsule(std::string name, const Eigen::Vector3d& center, double length, double radius);
  const char* type() const override { return "capsule"; }
  /// @throws InputError naming the obstacle unless the radius is positive and finite and the
  /// length finite and >= 0 (0: a sphere).
  void validate(int dim) const override;
  double distance(const double* x, int dim) const override;
  void distance_derivatives(const double* x, int dim, double* g, double* H) const override;
  void normal(const double* x, int dim, double* n, double* J = nullptr) const override;
  double time_of_impact(const double* x, const double* dx, int dim) const override;

 private:
  /// r = x - s(x) (dim values; r[1] = 0 beside the segment); true beside the segment.
  bool offset(const double* x, int dim, double* r) const;

  Eigen::Vector3d center_;
  double length_, radius_;
};

/// The space above a terrain y = h(x, z) (h(x) in 2D), bilinear on a grid: origin (x0, z0),
/// spacing, heights row-major [iz * nx + ix]; beyond the grid the edge cells extend.
/// d = (y - h) / sqrt(1 + |grad h|^2), the normal that of the surface.
class HeightField final : public Obstacle {
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

}  // namespace softgrad
