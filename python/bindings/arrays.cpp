#include "arrays.hpp"

#include <cmath>

#include "softgrad/errors.hpp"

namespace softgrad::python {

Eigen::VectorXd to_vector(const py::handle& value, Eigen::Index size, const std::string& what,
                          const std::string& shape) {
  const std::string expected =
      what + ": expected " +
      (shape.empty() ? std::to_string(size) + " values"
                     : "shape " + shape + " (" + std::to_string(size) + " values)");
  py::array array;
  try {
    array = py::array::ensure(value);
  } catch (const py::error_already_set&) {
  }
  if (!array) throw InputError(expected + ", got a " + std::string(py::str(value.get_type())));
  const char kind = array.dtype().kind();
  if (kind != 'f' && kind != 'i' && kind != 'u')
    throw InputError(expected + ", got an array of dtype " + std::string(py::str(array.dtype())) +
                     " (give floats)");
  const auto doubles =
      py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(array);
  Eigen::VectorXd out(size);
  if (doubles.size() == 1 && doubles.ndim() == 0) {
    out.setConstant(*doubles.data());
  } else if (doubles.size() == size) {
    out = Eigen::Map<const Eigen::VectorXd>(doubles.data(), size);
  } else {
    std::string got = "(";
    for (py::ssize_t d = 0; d < doubles.ndim(); ++d)
      got += (d ? ", " : "") + std::to_string(doubles.shape(d));
    throw InputError(expected + ", got an array of shape " + got +
                     (doubles.ndim() == 1 ? ",)" : ")") + " with " +
                     std::to_string(doubles.size()) + " values");
  }
  for (Eigen::Index i = 0; i < size; ++i)
    if (!std::isfinite(out[i]))
      throw InputError(what + ": value " + std::to_string(i) + " is " +
                       (std::isnan(out[i]) ? "NaN" : "infinite"));
  return out;
}

py::array_t<double> to_array(const Eigen::VectorXd& flat, std::vector<py::ssize_t> shape) {
  py::array_t<double> out(shape);
  std::copy(flat.data(), flat.data() + flat.size(), out.mutable_data());
  return out;
}

}  // namespace softgrad::python
