// One include, named by the probe target's SIGNET_PROBE_HEADER: compiling
// this file asks whether that header is visible to the layer the probe
// target links (CMakeLists.txt beside this file).
#include SIGNET_PROBE_HEADER
