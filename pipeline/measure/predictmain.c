/* predict: the program of measure's prediction (pipeline/measure/predict.h):
 *   predict --predict FILE [play's options]   results/prediction.json
 *   predict --sizing FILE.md [play's options] docs/SIZING.md
 * It reads play's command line (lab/play/playopt.h) and asks for one of
 * the two; exit codes as predict_main's, 2 on a bad option.
 */
#include <stdio.h>

#include "opt.h"
#include "playopt.h"
#include "predict.h"
#include "util.h"

int main(int argc, char **argv)
{
    ut_set_prog("predict");
    playopt o;
    int rc = playopt_parse(argc, argv, &o);
    if (rc != OPT_OK)
        return rc == OPT_HELP ? 0 : 2;
    if (!o.predict && !o.sizing) {
        ut_err("give --predict FILE or --sizing FILE.md (build/bin/play simulates without either)");
        playopt_free(&o);
        return 2;
    }
    rc = predict_main(&o);
    playopt_free(&o);
    return rc;
}
