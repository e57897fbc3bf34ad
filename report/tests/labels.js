/* labels.js: run by report/tests/test_report.c in headless Chromium
 * (--dump-dom) over a page holding every figure of a rendered report
 * inline, each <svg> with data-name="<file>".  For each figure it lists
 * every text (its rendered box, getBoundingClientRect) that leaves the
 * figure (CUT) and every pair of texts whose boxes cross, sideways by more
 * than 1 px and upright by more than 40% of the lower one's height
 * (OVERLAP: two labels on one line running into each other; two lines
 * stacked close touch only by their font boxes' margins and pass).  The
 * list goes into a <pre> between the lines LABELS-BEGIN and LABELS-END,
 * one finding a line, tab-separated: kind, figure, text(s). */
(function () {
  var out = [];
  document.querySelectorAll('svg[data-name]').forEach(function (svg) {
    var name = svg.getAttribute('data-name'), sb = svg.getBoundingClientRect();
    var boxes = Array.prototype.slice.call(svg.querySelectorAll('text'))
      .map(function (t) { return {r: t.getBoundingClientRect(), s: (t.textContent || '').trim()}; })
      .filter(function (b) { return b.s.length > 0 && b.r.width > 0; });
    boxes.forEach(function (b) {
      var r = b.r;
      if (r.left < sb.left - 0.5 || r.right > sb.right + 0.5 || r.top < sb.top - 0.5 || r.bottom > sb.bottom + 0.5)
        out.push('CUT\t' + name + '\t' + b.s);
    });
    for (var i = 0; i < boxes.length; i++)
      for (var j = i + 1; j < boxes.length; j++) {
        var a = boxes[i].r, c = boxes[j].r;
        var w = Math.min(a.right, c.right) - Math.max(a.left, c.left);
        var h = Math.min(a.bottom, c.bottom) - Math.max(a.top, c.top);
        if (w > 1 && h > 0.4 * Math.min(a.height, c.height))
          out.push('OVERLAP\t' + name + '\t' + boxes[i].s + '\t' + boxes[j].s);
      }
  });
  var pre = document.createElement('pre');
  /* the markers are built here, so that the script's own text in the dump holds neither */
  pre.textContent = '\n' + 'LABELS' + '-BEGIN\n' + out.join('\n') + (out.length ? '\n' : '') + 'LABELS' + '-END\n';
  document.body.appendChild(pre);
})();
