// 00_cpu_baseline: CPU sums, timed and checked. See README.md.
#include "cpu_sums.h"

int main(int argc, char** argv) { return cpu_baseline::run(argc, argv); }
