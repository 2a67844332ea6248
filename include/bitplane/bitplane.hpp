// The umbrella header: everything bitplane offers on the CPU.
#pragma once

#include <bitplane/bitset.hpp>
#include <bitplane/bitset_view.hpp>
#include <bitplane/bitwise.hpp>
#include <bitplane/block.hpp>
#include <bitplane/codec.hpp>
#include <bitplane/dna/dna.hpp>
#include <bitplane/error.hpp>
#include <bitplane/int128.hpp>
#include <bitplane/parallel.hpp>
#include <bitplane/reduce.hpp>
#include <bitplane/scan.hpp>
#include <bitplane/serialize.hpp>
#include <bitplane/similarity.hpp>
#include <bitplane/simd.hpp>
#include <bitplane/stats.hpp>
#include <bitplane/stream_writer.hpp>
#include <bitplane/vector.hpp>
