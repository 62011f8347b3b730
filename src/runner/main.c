/* kwb-runner: the isolated evaluation process; see runner.h. */
#include "runner/runner.h"

int main(int argc, char **argv)
{
    return runner_main(argc, argv);
}
