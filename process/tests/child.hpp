// How the supervisor's tests start their fixture program (process_child.cpp),
// which the build names through KD_TEST_PROCESS_CHILD.
#pragma once

#include <string>
#include <vector>

#include "kd/supervisor.hpp"

#ifndef KD_TEST_PROCESS_CHILD
#error "KD_TEST_PROCESS_CHILD must name the fixture program"
#endif

namespace kd::test {

// The fixture program in one of its modes (see process_child.cpp), with its arguments.
inline SpawnSpec child(const std::vector<std::string>& args) {
  SpawnSpec spec;
  spec.argv = {KD_TEST_PROCESS_CHILD};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  return spec;
}

}  // namespace kd::test
