/// @file rl.hpp
/// Model-free baselines next to gradient-based training through the simulator: environments
/// (rl/env.hpp, rl/locomotion_env.hpp), PPO (rl/ppo.hpp) and OpenAI-ES
/// (rl/evolution_strategy.hpp), both using the simulator forward only and reporting learning
/// curves against simulated steps (rl/training.hpp).
#pragma once

#include "softgrad/adam.hpp"
#include "softgrad/rl/env.hpp"
#include "softgrad/rl/env_pool.hpp"
#include "softgrad/rl/evolution_strategy.hpp"
#include "softgrad/rl/gaussian_policy.hpp"
#include "softgrad/rl/locomotion_env.hpp"
#include "softgrad/rl/ppo.hpp"
#include "softgrad/rl/training.hpp"
