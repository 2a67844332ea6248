// The umbrella header: everything bitplane offers on the CPU.
#pragma once

#include <bitplane/block.hpp>
#include <bitplane/codec.hpp>
#include <bitplane/error.hpp>
#include <bitplane/serialize.hpp>
#include <bitplane/simd.hpp>
#include <bitplane/stats.hpp>
#include <bitplane/vector.hpp>
