// Errors that a person caused (a bad file, a bad option), as opposed to bugs.
#pragma once

#include <stdexcept>

namespace alluvium {

// Bad user input or file. The CLI prints e.what() as one line (no newline inside) and exits 2.
struct InputError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

} // namespace alluvium
