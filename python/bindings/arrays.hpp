/// @file arrays.hpp
/// NumPy arrays in and out of the bindings: every array that comes in is checked (a float or
/// integer dtype, the expected number of values or shape, finite values) and copied into Eigen
/// memory; every array that goes out is a fresh NumPy copy.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <Eigen/Core>
#include <string>
#include <vector>

namespace softgrad::python {

namespace py = pybind11;

/// A Python value (a number, a sequence or an array) as `size` doubles: a scalar fills all
/// of them, an array must hold exactly `size` values (any shape, read in C order).
/// @throws InputError "<what>: expected shape <shape> (<size> values), got ..." (or "expected
///         <size> values" for an empty shape) naming the dtype or shape it got, or the first
///         non-finite entry.
Eigen::VectorXd to_vector(const py::handle& value, Eigen::Index size, const std::string& what,
                          const std::string& shape);

/// A (rows, cols) float64 array of `rows` stacked vectors of `cols` values each (a copy).
py::array_t<double> to_array(const Eigen::VectorXd& flat, std::vector<py::ssize_t> shape);

}  // namespace softgrad::python
