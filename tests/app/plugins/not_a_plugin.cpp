// A shared library without softgrad's entry point.
extern "C" __attribute__((visibility("default"))) int some_function() { return 1; }
