/* memsite: the in-page filter of category and tag pages.
 *
 * Progressive enhancement: the box ships hidden and this script shows it, so a page without
 * JavaScript shows every card as before. It filters only what the page holds (the cards and
 * the folded inactive rows of this page), by the words typed: a card stays when its text
 * (fact, id, date, key, #tags, status) holds every word. Entry text is only read
 * (textContent), never written back as markup.
 *
 * The script sits in the page content, so Material's instant navigation runs it again on
 * every page it loads; each box is set up once (data-ready), and document$ (when Material
 * provides it) catches pages whose scripts were not run again.
 */
(function () {
  "use strict";

  function words(text) {
    return text.toLowerCase().split(/\s+/).filter(function (w) { return w.length > 0; });
  }

  function setUp() {
    var box = document.getElementById("memsite-filter");
    if (!box || box.getAttribute("data-ready") === "yes") {
      return;
    }
    var input = box.querySelector("input");
    var count = box.querySelector(".memsite-filter__count");
    var scope = box.closest("article") || document;
    var items = Array.prototype.slice.call(scope.querySelectorAll(".memsite-card, .memsite-row"));
    var texts = items.map(function (item) { return item.textContent.toLowerCase(); });
    var empty = box.querySelector(".memsite-filter__none");

    function apply() {
      var wanted = words(input.value);
      var shown = 0;
      items.forEach(function (item, n) {
        var keep = wanted.every(function (w) { return texts[n].indexOf(w) >= 0; });
        item.hidden = !keep;
        if (keep) {
          shown += 1;
        }
      });
      if (wanted.length === 0) {
        count.textContent = "";
      } else {
        count.textContent = shown + " of " + items.length + " on this page";
      }
      if (empty) {
        empty.hidden = !(wanted.length > 0 && shown === 0);
        var all = empty.querySelector("a.memsite-filter__all");
        if (all) {
          // the search page over the whole category (or tag), with the words typed here
          var target = new URL(all.getAttribute("href"), window.location.href);
          target.searchParams.set("query", input.value.trim());
          all.href = target.href;
        }
      }
      if (wanted.length > 0) {
        scope.querySelectorAll("details.memsite-inactive").forEach(function (d) {
          if (d.querySelector(".memsite-row:not([hidden])")) {
            d.open = true;
          }
        });
      }
    }

    input.addEventListener("input", apply);
    box.hidden = false;
    box.setAttribute("data-ready", "yes");
    if (input.value) {
      apply(); // a value the browser restored (back button)
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
  if (typeof window.document$ !== "undefined" && !window.memsiteFilterSubscribed) {
    window.memsiteFilterSubscribed = true;
    window.document$.subscribe(setUp);
  }
})();
