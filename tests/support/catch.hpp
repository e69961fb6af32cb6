// Catch2 v2 (single header) or v3 (split headers), whichever is installed.
#pragma once
#if __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_test_macros.hpp>
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#define GSHMEM_CATCH_V3 1
#else
#include <catch2/catch.hpp>
#define GSHMEM_CATCH_V3 0
#endif
