// Ctrl-C within a step for Python's long calls (simulate, gradient, tangent, batches): while a
// CtrlC guard lives on the main thread, and Python's own SIGINT handler is the default one (it
// raises KeyboardInterrupt), SIGINT raises the flag the scene's Newton solves and adjoint sweeps
// poll (NewtonOptions::interrupt) and hands the signal to Python. The call then raises
// KeyboardInterrupt; it never returns a partial result.
#include <cerrno>
#include <csignal>

#include "handles.hpp"

namespace softgrad::python {

namespace py = pybind11;

namespace {

volatile std::sig_atomic_t g_interrupt = 0;  // constant-initialised: safe in the handler

extern "C" void on_sigint(int) {
  const int saved = errno;  // the interrupted code's errno (a wakeup fd's write may change it)
  g_interrupt = 1;
  PyErr_SetInterruptEx(SIGINT);  // async-signal-safe (Python >= 3.10)
  errno = saved;
}

// Found once, at import (running Python code inside a function-local static's initialisation
// could deadlock against another thread).
unsigned long g_main_thread = 0;
py::object* g_getsignal = nullptr;
py::object* g_default_handler = nullptr;

/// Whether SIGINT would raise KeyboardInterrupt here: the main thread, with Python's default
/// handler (a handler of the user's, SIG_IGN or SIG_DFL is left to work as it does).
bool python_raises_on_sigint() {
  if (g_getsignal == nullptr || PyThread_get_thread_ident() != g_main_thread) return false;
  return (*g_getsignal)(SIGINT).is(*g_default_handler);
}

}  // namespace

void init_ctrl_c() {
  g_main_thread =
      py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
  const py::module_ signal = py::module_::import("signal");
  g_getsignal = new py::object(signal.attr("getsignal"));  // kept for the module's lifetime
  g_default_handler = new py::object(signal.attr("default_int_handler"));
}

const volatile std::sig_atomic_t* interrupt_flag() { return &g_interrupt; }

CtrlC::CtrlC() {
  if (!python_raises_on_sigint()) return;
  g_interrupt = 0;
  struct sigaction action {};
  action.sa_handler = on_sigint;
  sigemptyset(&action.sa_mask);
  installed_ = sigaction(SIGINT, &action, &previous_) == 0;
}

CtrlC::~CtrlC() {
  if (!installed_) return;
  sigaction(SIGINT, &previous_, nullptr);
  g_interrupt = 0;
}

bool CtrlC::raised() const { return installed_ && g_interrupt != 0; }

void CtrlC::raise_if_raised() const {
  if (!raised()) return;
  if (PyErr_CheckSignals() == 0) PyErr_SetNone(PyExc_KeyboardInterrupt);  // never a partial result
  throw py::error_already_set();
}

}  // namespace softgrad::python
