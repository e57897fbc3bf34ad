/* test_tpl: the template engine (src/tpl.h) on hand-written cases: a
 * placeholder, a loop, a conditional, a command, the errors (a missing
 * value names the file, the line and the placeholder; nothing is ever
 * rendered silently empty). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../src/fmt.h"
#include "../src/tpl.h"

typedef struct {
    char s[8192];
} out_t;

static void t_text(void *ctx, const char *s, size_t n)
{
    out_t *o = ctx;
    strncat(o->s, s, n);
}

/* values as "<PTR:TEXT>", so that the pointer is checked too */
static int t_value(void *ctx, json_t *v, const char *ptr, const char *kind, char *err, size_t el)
{
    out_t *o = ctx;
    char t[256];
    if (fmt_value(v, kind, t, sizeof t) != 0) {
        snprintf(err, el, "not %s", kind);
        return -1;
    }
    strcat(o->s, "<");
    strcat(o->s, ptr);
    strcat(o->s, ":");
    strcat(o->s, t);
    strcat(o->s, ">");
    return 0;
}

static void t_missing(void *ctx)
{
    strcat(((out_t *)ctx)->s, "not measured");
}

static int t_command(void *ctx, int argc, char **argv, char *err, size_t el)
{
    out_t *o = ctx;
    if (!strcmp(argv[0], "bad")) {
        snprintf(err, el, "the sink says no");
        return -1;
    }
    strcat(o->s, "[");
    for (int i = 0; i < argc; i++) {
        if (i)
            strcat(o->s, "|");
        strcat(o->s, argv[i]);
    }
    strcat(o->s, "]");
    return 0;
}

static const char *DATA = "{\"arms\": {\"H3-fb25\": {\"p99_ms\": {\"median\": 25.23}, \"share\": 0.0162},"
                          "          \"H3-none\": {\"p99_ms\": {\"median\": 1234.5}}},"
                          " \"verdicts\": [{\"a\": \"H3-none\", \"b\": \"F3-none\", \"verdict\": \"clearly different\"},"
                          "              {\"a\": \"H3-fb25\", \"b\": \"H3-t25\", \"verdict\": \"too close to call\"}],"
                          " \"list\": [\"x\", \"y\", \"z\"], \"empty\": [], \"nul\": null, \"n\": 3}";
static const char *DESIGN = "{\"arms\": [{\"name\": \"H3-none\", \"words\": \"freezes, no limit\"},"
                            "          {\"name\": \"H3-fb25\", \"words\": \"freezes, 25 ms limit\"}]}";

static out_t o;
static char err[2048];

static int R(const char *tpl)
{
    json_error_t je;
    json_t *root = json_loads(DATA, 0, &je), *design = json_loads(DESIGN, 0, &je);
    cr_assert(root && design, "%s", je.text);
    tpl_sink s = {&o, "v.json", t_text, t_value, t_missing, t_command};
    o.s[0] = 0;
    err[0] = 0;
    int rc = tpl_render(tpl, "t.md.in", root, design, &s, err, sizeof err);
    json_decref(root);
    json_decref(design);
    return rc;
}

Test(tpl, a_placeholder_prints_its_value_and_pointer)
{
    cr_assert_eq(R("p99 {arms.H3-fb25.p99_ms.median|ms|ms} and {arms.H3-fb25.share|pct}.\n"), 0, "%s", err);
    cr_expect_str_eq(o.s, "p99 </arms/H3-fb25/p99_ms/median:25.2>ms and </arms/H3-fb25/share:1.62%>.\n");
    cr_assert_eq(R("{verdicts[a=H3-fb25,b=H3-t25].verdict|str}"), 0, "%s", err);
    cr_expect_str_eq(o.s, "</verdicts/1/verdict:too close to call>");
    cr_assert_eq(R("{{ literal"), 0, "%s", err);
    cr_expect_str_eq(o.s, "{ literal");
}

Test(tpl, a_loop_over_a_list_an_object_and_words)
{
    cr_assert_eq(R("{#each a in design.arms}{$a}: {$a.words|str}, {arms.$a.p99_ms.median|ms}{#sep}; {/each}."), 0,
                 "%s", err);
    cr_expect_str_eq(o.s, "H3-none: freezes, no limit, </arms/H3-none/p99_ms/median:1,235>; "
                          "H3-fb25: freezes, 25 ms limit, </arms/H3-fb25/p99_ms/median:25.2>.");
    cr_assert_eq(R("{#each k in arms}{$k}{#sep},{/each}"), 0, "%s", err);
    cr_expect_str_eq(o.s, "H3-fb25,H3-none");
    cr_assert_eq(R("{#each w in [H3-fb25 H3-zz]}{~arms.$w.share|pct}{#sep} / {/each}"), 0, "%s", err);
    cr_expect_str_eq(o.s, "</arms/H3-fb25/share:1.62%> / not measured");
    cr_assert_eq(R("{#each v in verdicts}{$v.a|str}{/each}"), 0, "%s", err);
    cr_expect_str_eq(o.s, "</verdicts/0/a:H3-none></verdicts/1/a:H3-fb25>");
    cr_assert_eq(R("{#each e in empty}x{#else}none{/each}"), 0, "%s", err);
    cr_expect_str_eq(o.s, "none");
}

Test(tpl, a_conditional_picks_its_branch)
{
    const char *t = "{#each v in verdicts}{#if $v.verdict == \"too close to call\"}close{#elif $v.a == \"H3-none\"}"
                    "apart{#else}?{/if}{#sep} {/each}";
    cr_assert_eq(R(t), 0, "%s", err);
    cr_expect_str_eq(o.s, "apart close");
    cr_assert_eq(R("{#if arms.H3-zz}yes{#else}no{/if} {#if !nul}nonull{/if} {#if n > 2 && n <= 3}three{/if}"), 0,
                 "%s", err);
    cr_expect_str_eq(o.s, "no nonull three");
}

Test(tpl, block_lines_are_dropped_whole_and_commands_reach_the_sink)
{
    cr_assert_eq(R("{* a comment\n   over lines *}\n{@h|2|{arms.H3-fb25.p99_ms.median|ms} ms}\n"
                   "  {#if n}\ntext\n  {/if}\n"),
                 0, "%s", err);
    cr_expect_str_eq(o.s, "[h|2|25.2 ms]text\n");
}

Test(tpl, a_missing_value_is_an_error_naming_file_line_and_placeholder)
{
    cr_assert_eq(R("fine\n{arms.H9-none.p99_ms.median|ms}\n"), -1);
    cr_expect_str_eq(err, "t.md.in:2: {arms.H9-none.p99_ms.median|ms}: no such value in v.json (no H9-none)");
    cr_assert_eq(R("{#each a in design.arms}\n{arms.$a.share|pct}\n{/each}\n"), -1);
    cr_expect_str_eq(err, "t.md.in:2: {arms.$a.share|pct}: no such value in v.json (no share)");
    cr_assert_eq(R("{design.arms.0.nope|str}"), -1);
    cr_expect_str_eq(err, "t.md.in:1: {design.arms.0.nope|str}: no such value in the design data (no nope)");
}

Test(tpl, malformed_templates_are_errors)
{
    cr_assert_eq(R("a\n{#if n}open"), -1);
    cr_expect_str_eq(err, "t.md.in:2: {#if n}: without its {/if}");
    cr_assert_eq(R("{#each a in list}x"), -1);
    cr_expect(strstr(err, "t.md.in:1: {#each a in list}: without its {/each}"), "%s", err);
    cr_assert_eq(R("{/if}"), -1);
    cr_expect(strstr(err, "{/if} without its opening tag"), "%s", err);
    cr_assert_eq(R("{#loop x}"), -1);
    cr_expect(strstr(err, "{#loop x}: no such directive"), "%s", err);
    cr_assert_eq(R("{n|furlongs}"), -1);
    cr_expect(strstr(err, "\"furlongs\" is no kind"), "%s", err);
    cr_assert_eq(R("{n}"), -1);
    cr_expect(strstr(err, "wants {PATH|KIND}"), "%s", err);
    cr_assert_eq(R("{$a}"), -1);
    cr_expect(strstr(err, "no loop's variable a"), "%s", err);
    cr_assert_eq(R("{arms.$b.share|pct}"), -1);
    cr_expect(strstr(err, "$b is no loop's variable here"), "%s", err);
    cr_assert_eq(R("an open {brace\n"), -1);
    cr_expect(strstr(err, "t.md.in:1: a { without its } on the line"), "%s", err);
    cr_assert_eq(R("{@bad|x}"), -1);
    cr_expect_str_eq(err, "t.md.in:1: {@bad|x}: the sink says no");
    cr_assert_eq(R("{list.0|ms}"), -1);
    cr_expect_str_eq(err, "t.md.in:1: {list.0|ms}: not ms");
}

Test(tpl, a_definition_called_with_words_and_a_single_value_as_a_list)
{
    cr_assert_eq(R("{#def med arm}{#if arms.$arm}{arms.$arm.p99_ms.median|ms| ms}{#else}none{/if}{/def}"
                   "{#call med H3-fb25}, {#call med H3-zz}; {#each k in [H3-none]}{#call med $k}{/each}"),
                 0, "%s", err);
    cr_expect_str_eq(o.s, "</arms/H3-fb25/p99_ms/median:25.2> ms, none; </arms/H3-none/p99_ms/median:1,235> ms");
    cr_assert_eq(R("{#each n in n}n is {$n}, at {$n|int}{/each}"), 0, "%s", err);
    cr_expect_str_eq(o.s, "n is 3, at </n:3>");
    cr_assert_eq(R("{#each w in [pct]}{arms.H3-fb25.share|$w}{/each} {list.-1|str}"), 0, "%s", err);
    cr_expect_str_eq(o.s, "</arms/H3-fb25/share:1.62%> </list/2:z>");
    cr_assert_eq(R("{#call nope x}"), -1);
    cr_expect(strstr(err, "t.md.in:1: {#call nope x}: no {#def nope} before it"), "%s", err);
    cr_assert_eq(R("{#def two a b}x{/def}{#call two 1}"), -1);
    cr_expect(strstr(err, "two wants 2 arguments"), "%s", err);
}

Test(tpl, presence_nulls_indexes_and_absent_values_printed_as_null)
{
    cr_assert_eq(R("{#if ?nul}present{/if} {#if nul == null}null{/if} {#if n != null}not null{/if} "
                   "{#if !n || ?nul}either{/if} {#if ?nothing}x{#else}absent{/if}"),
                 0, "%s", err);
    cr_expect_str_eq(o.s, "present null not null either absent");
    cr_assert_eq(R("{#each v in verdicts}{$v#}:{$v.b|str}{#sep} {/each} {#each w in [a b]}{#if $w# == \"1\"}{$w}{/if}{/each}"),
                 0, "%s", err);
    cr_expect_str_eq(o.s, "0:</verdicts/0/b:F3-none> 1:</verdicts/1/b:H3-t25> b");
    /* {?PATH|KIND}: the sink gets a null at the pointer the path would have; {~PATH|KIND}: "not measured" */
    cr_assert_eq(R("{?arms.H3-zz.p99_ms.median|ms} {~arms.H3-zz.p99_ms.median|ms| ms}"), 0, "%s", err);
    cr_expect_str_eq(o.s, "</arms/H3-zz/p99_ms/median:\xe2\x80\x94> not measured");
}
