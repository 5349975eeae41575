#include "dpkit/sim/model.hpp"
