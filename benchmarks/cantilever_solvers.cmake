# cantilever_solvers: the linear solvers (cholmod, pcg-jacobi, pcg-ichol, matfree) on a dynamic
# 3D cantilever at about 1k, 10k and 50k tetrahedra. Included from benchmarks/CMakeLists.txt;
# the reference result is benchmarks/results/cantilever_solvers.json.
add_executable(cantilever_solvers ${CMAKE_CURRENT_LIST_DIR}/cantilever_solvers.cpp
                                  ${CMAKE_CURRENT_LIST_DIR}/cantilever_solvers_parent.cpp)
target_link_libraries(cantilever_solvers PRIVATE softgrad::softgrad nlohmann_json::nlohmann_json
                                                 OpenMP::OpenMP_CXX)
softgrad_set_warnings(cantilever_solvers)
