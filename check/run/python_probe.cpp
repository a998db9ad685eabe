#include "run/python_probe.hpp"


namespace kd {

std::string_view python_probe_program_text();  // python_probe_program.cpp, made by the build

std::string_view python_probe_program() { return python_probe_program_text(); }

std::vector<std::string> python_worker_argv(const std::string& python, bool gpu, long long index,
                                            const Options& options,
                                            const std::string& private_folder) {
  nlohmann::json weights = nlohmann::json::array();
  for (const WeightsAsked& file : options.weights) {
    weights.push_back({{"path", file.path}, {"name", file.name}});
  }
  const nlohmann::json asked = {{"compile", options.compile},
                                {"imports", options.imports},
                                {"weights", weights},
                                {"dtypes", options.dtypes},
                                {"private_folder", private_folder}};
  return {python, "-B", "-c", std::string(python_probe_program()), gpu ? "cuda" : "cpu",
          std::to_string(index),
          asked.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
}

}  // namespace kd
