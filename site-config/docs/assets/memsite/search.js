/* memsite portal search: the prebuilt Lunr postings, filters, results as text only.
 *
 * search/memsite-lunr.json holds, for each term, the short integer refs of the entries that
 * contain it (per field, delta coded, a ref repeated once per extra occurrence). lunr.js's own
 * Builder turns them into its index (BM25 vectors computed exactly as lunr does); no text
 * pipeline runs here. search/memsite-docs.json maps refs to ids and what a result line shows.
 * Entry text is only ever set with textContent.
 */
(function () {
  "use strict";

  function loadIndex(data) {
    var builder = new lunr.Builder();
    builder.pipeline.reset();
    builder.searchPipeline.reset();
    builder.searchPipeline.add(lunr.stemmer);
    builder.ref("ref");
    var fields = data.fields;
    for (var f = 0; f < fields.length; f++) {
      builder.field(fields[f], { boost: data.boosts[f] });
    }
    var n = data.documentCount;
    builder.documentCount = n;
    for (var d = 0; d < n; d++) {
      builder._documents[String(d)] = {};
      for (f = 0; f < fields.length; f++) {
        var fieldRef = fields[f] + "/" + d;
        builder.fieldTermFrequencies[fieldRef] = Object.create(null);
        builder.fieldLengths[fieldRef] = 0;
      }
    }
    var terms = data.terms;
    for (var t = 0; t < terms.length; t++) {
      var term = terms[t];
      var posting = Object.create(null);
      posting._index = builder.termIndex++;
      for (f = 0; f < fields.length; f++) posting[fields[f]] = Object.create(null);
      var row = data.postings[t];
      for (var p = 0; p < row.length; p++) {
        var field = fields[row[p][0]], deltas = row[p][1], ref = 0;
        for (var k = 0; k < deltas.length; k++) {
          ref += deltas[k];
          var key = String(ref), fr = field + "/" + key;
          posting[field][key] = Object.create(null);
          var tfs = builder.fieldTermFrequencies[fr];
          tfs[term] = (tfs[term] || 0) + 1;
          builder.fieldLengths[fr] += 1;
        }
      }
      builder.invertedIndex[term] = posting;
    }
    return builder.build();
  }

  function text(tag, value, className) {
    var el = document.createElement(tag);
    el.textContent = value;
    if (className) el.className = className;
    return el;
  }

  function init() {
    var form = document.getElementById("memsite-search");
    if (!form || form.getAttribute("data-ready") === "yes" || typeof lunr === "undefined") return;
    form.setAttribute("data-ready", "yes");
    form.addEventListener("submit", function (ev) { ev.preventDefault(); });

    var input = document.getElementById("memsite-q");
    var selects = {
      category: document.getElementById("memsite-category"),
      tag: document.getElementById("memsite-tag"),
      status: document.getElementById("memsite-status")
    };
    var summary = document.getElementById("memsite-summary");
    var list = document.getElementById("memsite-results");
    var root = form.getAttribute("data-root") || "";
    var base = window.location.href;

    var params = new URLSearchParams(window.location.search);
    if (params.has("query")) input.value = params.get("query");
    Object.keys(selects).forEach(function (name) {
      if (params.has(name)) selects[name].value = params.get(name);
    });

    var state = null;

    function tokens(query, separator) {
      return query.toLowerCase().split(separator).map(function (word) {
        return word.replace(/^[^\p{L}\p{N}_]+|[^\p{L}\p{N}_]+$/gu, "");
      }).filter(function (word) { return word.length > 0; });
    }

    function matches(doc) {
      var category = selects.category.value, tag = selects.tag.value;
      var status = selects.status.value, docs = state.docs;
      if (category && docs.categories[doc[2]] !== category) return false;
      if (status && docs.statuses[doc[4]] !== status) return false;
      if (tag) {
        var found = false;
        for (var i = 0; i < doc[3].length; i++) {
          if (docs.tags[doc[3][i]] === tag) { found = true; break; }
        }
        if (!found) return false;
      }
      return true;
    }

    function render(refs, total, query) {
      while (list.firstChild) list.removeChild(list.firstChild);
      var docs = state.docs;
      refs.forEach(function (ref) {
        var doc = docs.docs[ref];
        var item = document.createElement("li");
        item.className = "memsite-result";
        var link = text("a", doc[1]);
        link.href = root + "entries/" + doc[0] + "/" + (query ? "?h=" + encodeURIComponent(query) : "");
        item.appendChild(link);
        item.appendChild(document.createTextNode(" "));
        var status = docs.statuses[doc[4]];
        item.appendChild(text("span", status, "memsite-status memsite-status--" + status));
        var meta = document.createElement("div");
        meta.className = "memsite-muted";
        meta.appendChild(text("span", doc[5] + " · " + docs.categoryTitles[doc[2]]));
        doc[3].forEach(function (t) { meta.appendChild(text("span", " #" + docs.tags[t])); });
        item.appendChild(meta);
        list.appendChild(item);
      });
      var shown = refs.length < total ? " (showing " + refs.length + ")" : "";
      summary.textContent = total + (total === 1 ? " entry" : " entries") + shown;
    }

    function run() {
      if (!state) return;
      var query = input.value.trim();
      var words = tokens(query, state.separator);
      var refs = [];
      if (words.length === 0) {
        for (var i = 0; i < state.docs.docs.length; i++) {
          if (matches(state.docs.docs[i])) refs.push(i);
        }
      } else {
        var hits = state.index.query(function (q) {
          words.forEach(function (word) {
            q.term(word, { boost: 10 });
            q.term(word, { usePipeline: false, wildcard: lunr.Query.wildcard.TRAILING, boost: 2 });
            if (word.length >= 5) q.term(word, { usePipeline: false, editDistance: 1, boost: 1 });
          });
        });
        hits.forEach(function (hit) {
          var ref = parseInt(hit.ref, 10);
          if (matches(state.docs.docs[ref])) refs.push(ref);
        });
      }
      render(refs.slice(0, 100), refs.length, query);
      var next = new URLSearchParams();
      if (query) next.set("query", query);
      Object.keys(selects).forEach(function (name) {
        if (selects[name].value !== (name === "status" ? "active" : "")) {
          next.set(name, selects[name].value);
        }
      });
      var search = next.toString();
      window.history.replaceState(window.history.state, "", search ? "?" + search : window.location.pathname);
    }

    var timer = null;
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(run, 120);
    });
    Object.keys(selects).forEach(function (name) { selects[name].addEventListener("change", run); });

    function fetchJSON(attr) {
      return fetch(new URL(form.getAttribute(attr), base).href).then(function (response) {
        if (!response.ok) throw new Error(response.status + " " + response.statusText);
        return response.json();
      });
    }

    Promise.all([fetchJSON("data-index"), fetchJSON("data-docs")]).then(function (loaded) {
      state = {
        index: loadIndex(loaded[0]),
        docs: loaded[1],
        separator: new RegExp(loaded[0].separator)
      };
      run();
      form.setAttribute("data-loaded", "yes");
    }).catch(function (error) {
      summary.textContent = "The search index could not be loaded (" + error.message + ").";
    });
  }

  init();
})();
