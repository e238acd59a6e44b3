/* memsite portal search: the header box and the search page, over memsite's own split index.
 *
 * The files under search/ are written by memsite/portal/searchdata.py (read its docstring). A
 * query loads meta.json once, then only the term shards holding its words (and, for a word the
 * index lacks, the vocabulary files of nearby lengths), and the result rows it shows. Analysis
 * and ranking follow memsite's CLI (core/text.py, core/stem.py, core/ranking.py): the same
 * word tokens, Porter stems, common words, synonyms, stem-prefix terms, typo matching, BM25
 * with tag and key terms weighted, IDF-weighted coverage and recency; meta.json carries the
 * CLI's tables. Entry text is only ever set with textContent (DESIGN §14).
 */
(function () {
  "use strict";
  if (window.memsiteSearch) {
    window.memsiteSearch.mount();
    return;
  }

  /* ---- analysis: core/text.py normalize + word_tokens, core/stem.py stem ---- */

  var CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff";
  var TOKEN = new RegExp("[" + CJK + "]|(?:(?![" + CJK + "])[\\p{L}\\p{N}_])+", "gu");

  function normalize(text) {
    var folded = text.normalize("NFKC").toLowerCase().replace(/ß/g, "ss").replace(/ς/g, "σ");
    return folded.replace(/\s+/g, " ").trim().replace(/[.!]+$/, "").trim();
  }

  function wordTokens(normalized) {
    return normalized.match(TOKEN) || [];
  }

  var c = "[^aeiou]", v = "[aeiouy]", C = c + "[^aeiouy]*", V = v + "[aeiou]*";
  var M_GT0 = new RegExp("^(" + C + ")?" + V + C);
  var M_EQ1 = new RegExp("^(" + C + ")?" + V + C + "(" + V + ")?$");
  var M_GT1 = new RegExp("^(" + C + ")?" + V + C + V + C);
  var HAS_VOWEL = new RegExp("^(" + C + ")?" + v);
  var CVC = new RegExp("^" + C + v + "[^aeiouwxy]$");
  var S1A = /^(.+?)(ss|i)es$/, S1A_S = /^(.+?)([^s])s$/, S1B_EED = /^(.+?)eed$/;
  var S1B = /^(.+?)(ed|ing)$/, S1B_E = /(at|bl|iz)$/, S1B_DOUBLE = /([^aeiouylsz])\1$/;
  var S1C = /^(.+?)y$/;
  var STEP2 = {
    ational: "ate", tional: "tion", enci: "ence", anci: "ance", izer: "ize", bli: "ble",
    alli: "al", entli: "ent", eli: "e", ousli: "ous", ization: "ize", ation: "ate",
    ator: "ate", alism: "al", iveness: "ive", fulness: "ful", ousness: "ous", aliti: "al",
    iviti: "ive", biliti: "ble", logi: "log"
  };
  var STEP3 = { icate: "ic", ative: "", alize: "al", iciti: "ic", ical: "ic", ful: "", ness: "" };
  var S2 = new RegExp("^(.+?)(" + Object.keys(STEP2).join("|") + ")$");
  var S3 = new RegExp("^(.+?)(" + Object.keys(STEP3).join("|") + ")$");
  var S4 = /^(.+?)(al|ance|ence|er|ic|able|ible|ant|ement|ment|ent|ou|ism|ate|iti|ous|ive|ize)$/;
  var S4_ION = /^(.+?)(s|t)(ion)$/, S5 = /^(.+?)e$/;
  var stems = new Map();

  function step1(word) {
    var m = S1A.exec(word) || S1A_S.exec(word);
    if (m) word = m[1] + m[2];
    if ((m = S1B_EED.exec(word))) {
      if (M_GT0.test(m[1])) word = word.slice(0, -1);
    } else if ((m = S1B.exec(word)) && HAS_VOWEL.test(m[1])) {
      word = m[1];
      if (S1B_E.test(word)) word += "e";
      else if (S1B_DOUBLE.test(word)) word = word.slice(0, -1);
      else if (CVC.test(word)) word += "e";
    }
    if ((m = S1C.exec(word)) && HAS_VOWEL.test(m[1])) word = m[1] + "i";
    return word;
  }

  function stemUncached(word) {
    if (word.length < 3 || !/^[a-z]+$/.test(word)) return word;
    var initialY = word[0] === "y";
    if (initialY) word = "Y" + word.slice(1);
    word = step1(word);
    var m;
    if ((m = S2.exec(word)) && M_GT0.test(m[1])) word = m[1] + STEP2[m[2]];
    if ((m = S3.exec(word)) && M_GT0.test(m[1])) word = m[1] + STEP3[m[2]];
    if ((m = S4.exec(word))) {
      if (M_GT1.test(m[1])) word = m[1];
    } else if ((m = S4_ION.exec(word)) && M_GT1.test(m[1] + m[2])) {
      word = m[1] + m[2];
    }
    if ((m = S5.exec(word))) {
      var base = m[1];
      if (M_GT1.test(base) || (M_EQ1.test(base) && !CVC.test(base))) word = base;
    }
    if (/ll$/.test(word) && M_GT1.test(word)) word = word.slice(0, -1);
    return initialY ? "y" + word.slice(1) : word;
  }

  function stem(word) {
    var found = stems.get(word);
    if (found === undefined) {
      found = stemUncached(word);
      stems.set(word, found);
    }
    return found;
  }

  function terms(text) {
    return wordTokens(normalize(text)).map(stem);
  }

  /* ---- edit distance: core/ranking.py within_distance (adjacent swaps cost 1) ---- */

  function bigrams(word) {
    var out = new Set();
    for (var i = 0; i + 1 < word.length; i++) out.add(word.slice(i, i + 2));
    return out;
  }

  function withinDistance(a, b, limit) {
    a = Array.from(a);
    b = Array.from(b);
    if (Math.abs(a.length - b.length) > limit) return null;
    var previous2 = [], previous = [], i, j;
    for (j = 0; j <= b.length; j++) previous.push(j);
    for (i = 1; i <= a.length; i++) {
      var current = [i], best = i;
      for (j = 1; j <= b.length; j++) {
        var cost = a[i - 1] === b[j - 1] ? 0 : 1;
        var value = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
          value = Math.min(value, previous2[j - 2] + 1);
        }
        current.push(value);
        best = Math.min(best, value);
      }
      if (best > limit) return null;
      previous2 = previous;
      previous = current;
    }
    var distance = previous[b.length];
    return distance <= limit ? distance : null;
  }

  /* ---- the index: files fetched on demand, each once ---- */

  function Engine(root) {
    this.base = this;
    this.root = root;
    this.files = new Map();
    this.postings = new Map();
    this.bytes = 0;
    this.latest = null;
    this.meta = this.load("meta.json");
  }

  /* A query that a newer one replaced while it waited for files: it fetches nothing more. */
  function Superseded() {
    this.message = "superseded by a newer query";
  }

  /* The engine for one of a box's queries (``lane``: the box's own object), each newer than
     the last: once a newer one of the same box has begun, an older one starts no fetch (the
     files it has begun still arrive, and are kept for whoever needs them) and ends in
     Superseded. Typing thus fetches little beyond what the final query needs; the other box
     of the page goes on undisturbed. */
  Engine.prototype.newest = function (lane) {
    var run = Object.create(this.base);
    run.lane = lane;
    run.ticket = {};
    lane.latest = run.ticket;
    return run;
  };

  Engine.prototype.load = function (path) {
    var self = this.base, found = self.files.get(path);
    if (!found && this.lane && this.ticket !== this.lane.latest) {
      return Promise.reject(new Superseded());
    }
    if (!found) {
      var loaded = path === "meta.json"
        ? fetch(new URL("search/meta.json", this.root).href, { cache: "no-cache" })
        : this.meta.then(function (meta) {
          return fetch(new URL("search/" + path + "?v=" + meta.stamp, self.root).href);
        });
      found = loaded.then(function (response) {
        if (!response.ok) throw new Error(path + ": " + response.status + " " + response.statusText);
        return response.text();
      }).then(function (body) {
        self.bytes += body.length;
        return JSON.parse(body);
      });
      found.catch(function () { self.files.delete(path); });
      self.files.set(path, found);
    }
    return found;
  };

  function lowerBound(list, value) {
    var lo = 0, hi = list.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (list[mid] < value) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  Engine.prototype.shardOf = function (meta, term) {
    return Math.max(0, lowerBound(meta.shards, term + "\u0000") - 1);
  };

  /* The term's {df, refs, values}, or null when no entry holds it. */
  Engine.prototype.term = function (term) {
    var self = this;
    return this.meta.then(function (meta) {
      var number = self.shardOf(meta, term);
      return self.load("t/" + number + ".json").then(function (shard) {
        var at = lowerBound(shard.terms, term);
        if (shard.terms[at] !== term) return null;
        var key = number + ":" + at, decoded = self.postings.get(key);
        if (!decoded) {
          var flat = shard.postings[at], refs = [], values = [], ref = 0;
          for (var k = 0; k < flat.length; k += 2) {
            ref += flat[k];
            refs.push(ref);
            values.push(flat[k + 1]);
          }
          decoded = { df: shard.df[at], refs: refs, values: values };
          self.postings.set(key, decoded);
        }
        return decoded;
      });
    });
  };

  /* Indexed terms starting with prefix, in order, at most limit (they may span shards). */
  Engine.prototype.prefixed = function (prefix, limit) {
    var self = this;
    return this.meta.then(function (meta) {
      var out = [];
      function from(number) {
        if (number >= meta.shards.length) return out;
        return self.load("t/" + number + ".json").then(function (shard) {
          for (var at = lowerBound(shard.terms, prefix); at < shard.terms.length; at++) {
            if (out.length >= limit || shard.terms[at].indexOf(prefix) !== 0) return out;
            out.push(shard.terms[at]);
          }
          var next = meta.shards[number + 1];
          return next !== undefined && next.indexOf(prefix) === 0 ? from(number + 1) : out;
        });
      }
      return from(self.shardOf(meta, prefix));
    });
  };

  Engine.prototype.nearby = function (length, spread) {
    var self = this;
    return this.meta.then(function (meta) {
      var wanted = meta.lengths.filter(function (n) {
        return n >= length - spread && n <= length + spread;
      });
      return Promise.all(wanted.map(function (n) { return self.load("v/" + n + ".json"); }))
        .then(function (lists) { return [].concat.apply([], lists); });
    });
  };

  /* core/ranking.py query_words + plan, core/thesaurus.py rewrite + related. */

  function Tables(raw) {
    this.raw = raw;
    this.stop = new Set(raw.stopwords);
    this.stopStems = new Set(raw.stopwords.map(stem));
    this.thesaurus = new Map(raw.thesaurus);
    this.longest = raw.thesaurus.reduce(function (n, row) {
      return Math.max(n, row[0].split(" ").length);
    }, 1);
  }

  Tables.prototype.tokens = function (query) {
    var text = normalize(query), symbols = this.raw.symbols;
    Object.keys(symbols).forEach(function (symbol) { text = text.split(symbol).join(symbols[symbol]); });
    return wordTokens(text);
  };

  Tables.prototype.words = function (query) {
    var self = this, words = Array.from(new Set(this.tokens(query)));
    var kept = words.filter(function (w) { return !self.stop.has(w) && !self.stopStems.has(stem(w)); });
    return kept.length ? kept : words;
  };

  /* Each distinct stem of a query and the stems the thesaurus lets it stand for. */
  Tables.prototype.expansions = function (stems) {
    var out = stems.map(function () { return new Set(); }), merged = new Map(), self = this;
    for (var start = 0; start < stems.length; start++) {
      var most = Math.min(this.longest, stems.length - start);
      for (var size = 1; size <= most; size++) {
        var others = this.thesaurus.get(stems.slice(start, start + size).join(" "));
        if (!others) continue;
        var words = new Set();
        others.forEach(function (o) {
          o.split(" ").forEach(function (t) { if (!self.stopStems.has(t)) words.add(t); });
        });
        for (var k = start; k < start + size; k++) {
          words.forEach(function (t) { if (t !== stems[k]) out[k].add(t); });
        }
      }
    }
    stems.forEach(function (word, k) {
      if (!merged.has(word)) merged.set(word, new Set());
      out[k].forEach(function (t) { merged.get(word).add(t); });
    });
    return merged;
  };

  function compounds(words) {
    var found = new Map();
    function add(term, served) {
      if (!found.has(term)) found.set(term, new Set());
      served.forEach(function (w) { found.get(term).add(w); });
    }
    for (var k = 0; k + 1 < words.length; k++) {
      add(stem(words[k] + words[k + 1]), [words[k], words[k + 1]]);
      add(words[k] + "_" + words[k + 1], [words[k], words[k + 1]]);
    }
    words.forEach(function (word) {
      if (word.indexOf("_") < 0) return;
      word.split("_").forEach(function (part) { if (part) add(stem(part), [word]); });
    });
    return found;
  }

  function best(near, fallback) {
    var chosen = null;
    near.forEach(function (weight, term) {
      if (chosen === null || weight > near.get(chosen) || (weight === near.get(chosen) && term < chosen)) {
        chosen = term;
      }
    });
    return chosen === null ? fallback : chosen;
  }

  Engine.prototype.tables = function () {
    var self = this.base;
    if (!self._tables) self._tables = self.meta.then(function (meta) { return new Tables(meta.ranking); });
    return self._tables;
  };

  /* Stems of the indexed words within edit distance of word, weighted by distance. */
  Engine.prototype.near = function (word, tables) {
    var length = Array.from(word).length, limit = length >= 8 ? 2 : 1;
    var mine = bigrams(word), need = mine.size - 3 * limit;
    return this.nearby(length, limit).then(function (others) {
      var found = new Map();
      others.forEach(function (other) {
        if (need > 0) {
          var shared = 0;
          bigrams(other).forEach(function (b) { if (mine.has(b)) shared++; });
          if (shared < need) return;
        }
        var distance = withinDistance(word, other, limit);
        if (distance) {
          var target = stem(other), weight = tables.raw.fuzzyWeight[String(distance)];
          found.set(target, Math.max(found.get(target) || 0, weight));
        }
      });
      return found;
    });
  };

  Engine.prototype.plan = function (query) {
    var self = this;
    return this.tables().then(function (tables) {
      var raw = tables.raw, words = tables.words(query), stems = new Map();
      words.forEach(function (w) { stems.set(w, stem(w)); });
      var joined = compounds(words);
      var lookups = new Set(Array.from(stems.values()).concat(Array.from(joined.keys())));
      var known = new Map();
      return Promise.all(Array.from(lookups).map(function (term) {
        return self.term(term).then(function (found) { known.set(term, found ? found.df : 0); });
      })).then(function () {
        var fuzzy = new Map();
        return Promise.all(words.map(function (w) {
          if (known.get(stems.get(w)) || Array.from(w).length < 3) return null;
          return self.near(w, tables).then(function (near) { fuzzy.set(w, near); });
        })).then(function () {
          var tokens = tables.tokens(query);
          var spelled = tokens.map(stem);
          var corrected = tokens.map(function (t) {
            return fuzzy.has(t) ? best(fuzzy.get(t), stem(t)) : stem(t);
          });
          var related = tables.expansions(spelled);
          tables.expansions(corrected).forEach(function (extra, term) {
            if (!related.has(term)) related.set(term, new Set());
            extra.forEach(function (t) { related.get(term).add(t); });
          });
          return Promise.all(words.map(function (word) {
            var root = stems.get(word), alternatives = new Map([[root, 1]]);
            var near = fuzzy.get(word) || new Map();
            near.forEach(function (weight, term) {
              alternatives.set(term, Math.max(alternatives.get(term) || 0, weight));
            });
            new Set([root, best(near, root)]).forEach(function (base) {
              (related.get(base) || new Set()).forEach(function (other) {
                var weight = raw.synonymWeight * (alternatives.get(base) || 0);
                alternatives.set(other, Math.max(alternatives.get(other) || 0, weight));
              });
            });
            joined.forEach(function (served, term) {
              if (served.has(word) && known.get(term) && !alternatives.has(term)) {
                alternatives.set(term, raw.compoundWeight);
              }
            });
            if (root.length < raw.prefixMin) return { word: word, alternatives: alternatives };
            var start = root.slice(0, Math.max(raw.prefixMin, root.length - 1));
            return self.prefixed(start, raw.prefixMaxTerms).then(function (found) {
              found.forEach(function (t) { if (!alternatives.has(t)) alternatives.set(t, raw.prefixWeight); });
              return { word: word, alternatives: alternatives };
            });
          }));
        });
      });
    });
  };

  function idf(documents, df) {
    return Math.log(1 + (documents - df + 0.5) / (df + 0.5));
  }

  /* The day (since 1970) of every ref, from meta.days: runs of [day delta, count]. */
  function refDays(meta) {
    if (!meta.refDays) {
      var days = new Int32Array(meta.documents), day = 0, at = 0;
      for (var k = 0; k < meta.days.length; k += 2) {
        day += meta.days[k];
        days.fill(day, at, at + meta.days[k + 1]);
        at += meta.days[k + 1];
      }
      meta.refDays = days;
    }
    return meta.refDays;
  }

  /* core.ranking.score's recency factor, from the fact's day (its middle) to now. */
  function recency(raw, day, today) {
    var age = Math.max(today - day - 0.5, 0);
    return 1 + raw.recencyWeight * Math.pow(0.5, age / raw.recencyHalfLifeDays);
  }

  /* Ranked refs for a query: {refs, matched (terms found, for highlighting), ids}. */
  Engine.prototype.search = function (query, filters) {
    var self = this;
    filters = filters || {};
    return Promise.all([this.meta, this.plan(query), this.idMatches(query), this.allowed(filters)])
      .then(function (loaded) {
        var meta = loaded[0], plan = loaded[1], ids = loaded[2], allowed = loaded[3];
        var statusBits = filters.status === undefined ? 0 : filters.status;
        var wanted = [];
        plan.forEach(function (t) { t.alternatives.forEach(function (_, alt) { wanted.push(alt); }); });
        return Promise.all(wanted.map(function (alt) { return self.term(alt); })).then(function (found) {
          var posting = new Map();
          wanted.forEach(function (alt, n) { posting.set(alt, found[n]); });
          var total = new Map(), matched = new Map(), weightAll = 0, hit = new Set();
          plan.forEach(function (t) {
            var first = t.alternatives.keys().next().value, best = new Map();
            var own = posting.get(first);
            var importance = idf(meta.documents, own ? own.df : 0);
            weightAll += importance;
            t.alternatives.forEach(function (weight, alt) {
              var p = posting.get(alt);
              if (!p) return;
              hit.add(alt);
              var factor = weight * idf(meta.documents, p.df) / meta.scale;
              for (var k = 0; k < p.refs.length; k++) {
                var value = p.values[k], ref = p.refs[k];
                if (statusBits !== null && (value & 7) !== statusBits) continue;
                if (allowed && !allowed.has(ref)) continue;
                var s = factor * (value >> 3);
                if (s > (best.get(ref) || 0)) best.set(ref, s);
              }
            });
            best.forEach(function (s, ref) {
              total.set(ref, (total.get(ref) || 0) + s);
              matched.set(ref, (matched.get(ref) || 0) + importance);
            });
          });
          var scored = [], days = refDays(meta), today = Date.now() / 86400000;
          total.forEach(function (s, ref) {
            var share = matched.get(ref) / (weightAll || 1);
            var factor = recency(meta.ranking, days[ref], today);
            scored.push([s * Math.pow(share, meta.ranking.coveragePower) * factor, ref]);
          });
          /* Ties: newest first (refs count from the oldest), as the CLI's compaction order. */
          scored.sort(function (a, b) { return b[0] - a[0] || b[1] - a[1]; });
          var refs = scored.map(function (pair) { return pair[1]; });
          var first = ids.filter(function (ref) { return !allowed || allowed.has(ref); });
          var seen = new Set(first);
          return {
            refs: first.concat(refs.filter(function (ref) { return !seen.has(ref); })),
            matched: hit,
            words: plan.map(function (t) { return t.word; })
          };
        });
      });
  };

  /* Refs of entries whose id starts with the query (at least 4 hex digits). */
  Engine.prototype.idMatches = function (query) {
    var prefix = query.trim().toLowerCase();
    if (!/^[0-9a-f]{4,}[0-9a-f-]*$/.test(prefix)) return Promise.resolve([]);
    var self = this;
    return this.meta.then(function (meta) {
      return self.load("i/" + prefix.slice(0, meta.idChars) + ".json").then(function (rows) {
        return rows.filter(function (row) { return row[0].indexOf(prefix) === 0; })
          .map(function (row) { return row[1]; });
      }, function (error) {
        if (error instanceof Superseded) throw error;
        return [];
      });
    });
  };

  function decodeRefs(deltas) {
    var out = new Set(), ref = 0;
    for (var k = 0; k < deltas.length; k++) {
      ref += deltas[k];
      out.add(ref);
    }
    return out;
  }

  /* The refs allowed by category and tag filters (null: all), intersected. */
  Engine.prototype.allowed = function (filters) {
    var names = [];
    if (filters.category !== undefined && filters.category !== null) names.push("c-" + filters.category);
    if (filters.tag !== undefined && filters.tag !== null) names.push("g-" + filters.tag);
    if (filters.browseStatus !== undefined && filters.browseStatus !== null) {
      names.push("s-" + filters.browseStatus);
    }
    if (!names.length) return Promise.resolve(null);
    var self = this;
    return Promise.all(names.map(function (name) {
      return self.load("f/" + name + ".json").then(decodeRefs, function (error) {
        if (error instanceof Superseded) throw error;
        return new Set();
      });
    })).then(function (sets) {
      return sets.reduce(function (a, b) {
        var out = new Set();
        a.forEach(function (ref) { if (b.has(ref)) out.add(ref); });
        return out;
      });
    });
  };

  /* Result rows for refs: [id, title, text, category, tags, status, day, key]. */
  Engine.prototype.rows = function (refs) {
    var self = this;
    return this.meta.then(function (meta) {
      return Promise.all(refs.map(function (ref) {
        return self.load("d/" + Math.floor(ref / meta.chunk) + ".json").then(function (chunk) {
          return chunk[ref % meta.chunk];
        });
      }));
    });
  };

  /* ---- showing results: text and <mark> nodes only ---- */

  function el(tag, className, value) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (value !== undefined) node.textContent = value;
    return node;
  }

  /* text with the words whose stems were matched in <mark>, cut to about width characters
     around the first of them. */
  function highlighted(text, matched, width) {
    var spans = [], first = -1, m, re = new RegExp(TOKEN.source, "gu");
    while ((m = re.exec(text))) {
      var hit = matched.has(stem(normalize(m[0])));
      spans.push([m.index, m.index + m[0].length, hit]);
      if (hit && first < 0) first = m.index;
    }
    var start = 0, end = text.length;
    if (width && text.length > width) {
      start = first > width / 3 ? text.lastIndexOf(" ", first - Math.floor(width / 3)) + 1 : 0;
      end = Math.min(text.length, start + width);
      var space = text.indexOf(" ", end);
      if (space > 0 && space - end < 20) end = space;
    }
    var out = document.createDocumentFragment(), at = start;
    if (start > 0) out.appendChild(document.createTextNode("… "));
    spans.forEach(function (span) {
      if (!span[2] || span[0] < start || span[1] > end) return;
      if (span[0] > at) out.appendChild(document.createTextNode(text.slice(at, span[0])));
      out.appendChild(el("mark", "", text.slice(span[0], span[1])));
      at = span[1];
    });
    if (at < end) out.appendChild(document.createTextNode(text.slice(at, end)));
    if (end < text.length) out.appendChild(document.createTextNode(" …"));
    return out;
  }

  /* A code span, as the CLI and the pages read one (memsite/portal/text.py): a run of
     backticks, then anything up to the next run of as many. */
  var CODE = /(?<!`)(`+)(?!`)([\s\S]+?)(?<!`)\1(?!`)/g;
  var TITLE_SWAP = { "<": "\u2039", ">": "\u203a", "\"": "\u201d", "'": "\u2019", "&": "\uff06", "`": "" };

  /* highlighted() with each code span as a <code> element (its text only: entry text is
     never markup). A span the cut splits shows its backticks. */
  function rich(text, matched, width) {
    var out = document.createDocumentFragment(), at = 0, m, re = new RegExp(CODE.source, "g");
    var shown = document.createElement("span");
    shown.appendChild(highlighted(text, matched, width));
    var flat = shown.textContent;
    while ((m = re.exec(flat))) {
      if (m.index > at) out.appendChild(highlighted(flat.slice(at, m.index), matched, 0));
      var code = el("code");
      var inner = m[2];
      if (inner.trim() && inner[0] === " " && inner[inner.length - 1] === " ") inner = inner.slice(1, -1);
      code.appendChild(highlighted(inner, matched, 0));
      out.appendChild(code);
      at = m.index + m[0].length;
    }
    if (at < flat.length) out.appendChild(highlighted(flat.slice(at), matched, 0));
    return out;
  }

  /* The title the index gives a fact (text.py safe_title), to tell whether it is all the text. */
  function asTitle(text) {
    return text.replace(/[<>"'&`]/g, function (ch) { return TITLE_SWAP[ch]; }).replace(/\s+/g, " ").trim();
  }

  /* A hit's heading and, when the fact is longer than its title, its snippet. */
  function heading(node, row, matched, width) {
    if (asTitle(row[2]) === row[1]) {
      node.appendChild(rich(row[2], matched, 0));
      return null;
    }
    node.appendChild(highlighted(row[1], matched, 0));
    var snippet = el("p", "memsite-snippet");
    snippet.appendChild(rich(row[2], matched, width));
    return snippet;
  }

  /* An entry's URL; ?h= carries the matched terms, which the entry page marks. */
  function entryHref(root, row, matched) {
    var h = Array.from(matched || []).join(" ");
    return new URL("entries/" + row[0] + "/" + (h ? "?h=" + encodeURIComponent(h) : ""), root).href;
  }

  /* On a page opened from a result, mark the words of its text whose stems were matched. */
  function mountHighlight() {
    var wanted = new URLSearchParams(window.location.search).get("h");
    var article = document.querySelector(".md-content article");
    if (!wanted || !article || article.getAttribute("data-marked") === "yes") return;
    article.setAttribute("data-marked", "yes");
    var matched = new Set(terms(wanted));
    var walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT), nodes = [];
    while (walker.nextNode()) nodes.push(walker.currentNode);
    nodes.forEach(function (node) {
      var parent = node.parentNode;
      if (!parent || /^(SCRIPT|STYLE|MARK|BUTTON)$/.test(parent.nodeName)) return;
      var text = node.nodeValue, re = new RegExp(TOKEN.source, "gu"), m, at = 0, out = null;
      while ((m = re.exec(text))) {
        if (!matched.has(stem(normalize(m[0])))) continue;
        out = out || document.createDocumentFragment();
        if (m.index > at) out.appendChild(document.createTextNode(text.slice(at, m.index)));
        out.appendChild(el("mark", "", m[0]));
        at = m.index + m[0].length;
      }
      if (!out) return;
      if (at < text.length) out.appendChild(document.createTextNode(text.slice(at)));
      parent.replaceChild(out, node);
    });
  }

  var engines = new Map();

  function engineFor(root) {
    if (!engines.has(root)) engines.set(root, new Engine(root));
    return engines.get(root);
  }

  /* Against the document's base: the 404 page sets one (overrides/main.html). */
  function rootOf(node) {
    return new URL(node.getAttribute("data-root") || "./", document.baseURI).href;
  }

  /* Single-key shortcuts (/, s, f) can be turned off (WCAG 2.1.4): the search page's
     checkbox, kept in localStorage. */
  var SHORTCUTS = "memsite.shortcuts";

  function shortcutsOn() {
    try {
      return window.localStorage.getItem(SHORTCUTS) !== "off";
    } catch (error) {
      return true;
    }
  }

  function mountShortcuts() {
    var box = document.getElementById("memsite-shortcuts");
    if (!box || box.getAttribute("data-ready") === "yes") return;
    box.setAttribute("data-ready", "yes");
    box.checked = shortcutsOn();
    box.addEventListener("change", function () {
      try {
        window.localStorage.setItem(SHORTCUTS, box.checked ? "on" : "off");
      } catch (error) { /* storage refused: the choice lasts this page */ }
    });
    box.closest(".memsite-shortcuts").hidden = false;
  }

  /* ---- the header box (site-config/overrides/partials/search.html) ---- */

  var SHOWN = 8;
  /* The shortest and longest pause in typing after which a query runs (see typingPause). */
  var TYPING_MS = 150, TYPING_MAX_MS = 500;

  /* run() once typing pauses: for longer than this person's own pace between keys (1.6
     times the median of their last gaps, within TYPING_MS..TYPING_MAX_MS), so that a query
     is looked up once it is whole, not at every key; a single character waits longest. */
  function typingPause(run, input) {
    var timer = null, last = 0, gaps = [];
    var wait = function () {
      var now = Date.now();
      if (last && now - last < 1500) {
        gaps.push(now - last);
        if (gaps.length > 6) gaps.shift();
      }
      last = now;
      var sorted = gaps.slice().sort(function (a, b) { return a - b; });
      var pace = sorted.length ? sorted[sorted.length >> 1] : 0;
      var pause = Math.min(TYPING_MAX_MS, Math.max(TYPING_MS, 1.6 * pace));
      if (input.value.trim().length === 1) pause = TYPING_MAX_MS;
      clearTimeout(timer);
      timer = setTimeout(run, pause);
    };
    wait.cancel = function () { clearTimeout(timer); };
    return wait;
  }

  function mountHeader() {
    var form = document.getElementById("memsite-header-search");
    if (!form || form.getAttribute("data-ready") === "yes") return;
    form.setAttribute("data-ready", "yes");
    var root = rootOf(form), engine = null;
    var input = document.getElementById("memsite-header-q");
    var list = document.getElementById("memsite-header-results");
    var summary = document.getElementById("memsite-header-summary");
    var toggle = document.getElementById("__search");
    var selected = -1, generation = 0, lane = {};

    function open() {
      if (toggle && !toggle.checked) {
        toggle.checked = true;
        toggle.dispatchEvent(new Event("change"));
      }
      input.setAttribute("aria-expanded", "true");
      engine = engine || engineFor(root);
    }

    function close() {
      if (toggle && toggle.checked) {
        toggle.checked = false;
        toggle.dispatchEvent(new Event("change"));
      }
      input.setAttribute("aria-expanded", "false");
    }

    function links() {
      return list.querySelectorAll("a.md-search-result__link");
    }

    function select(n) {
      var all = links();
      if (!all.length) return;
      selected = (n + all.length) % all.length;
      all.forEach(function (link, k) {
        link.classList.toggle("memsite-selected", k === selected);
        link.setAttribute("aria-selected", k === selected ? "true" : "false");
      });
      input.setAttribute("aria-activedescendant", all[selected].id);
      all[selected].scrollIntoView({ block: "nearest" });
    }

    function show(result, query, mine, run) {
      if (mine !== generation) return;
      var refs = result.refs.slice(0, SHOWN), statuses = [];
      return engine.meta.then(function (meta) {
        statuses = meta.statuses;
        return run.rows(refs);
      }).then(function (rows) {
        if (mine !== generation) return;
        while (list.firstChild) list.removeChild(list.firstChild);
        rows.forEach(function (row, n) {
          var item = el("li", "md-search-result__item");
          item.setAttribute("role", "presentation");
          var link = el("a", "md-search-result__link");
          link.href = entryHref(root, row, result.matched);
          link.id = "memsite-hit-" + n;
          link.setAttribute("role", "option");
          link.setAttribute("aria-selected", "false");
          var article = el("article", "md-search-result__article md-typeset");
          var title = el("h1");
          var teaser = heading(title, row, result.matched, 160);
          article.appendChild(title);
          if (teaser) article.appendChild(teaser);
          var line = el("p", "memsite-muted", row[6] + " · " + row[0].slice(0, 8));
          var status = statuses[row[5]];
          if (status !== "active") {
            line.appendChild(el("span", "memsite-status memsite-status--" + status, status));
          }
          article.appendChild(line);
          link.appendChild(article);
          item.appendChild(link);
          list.appendChild(item);
        });
        selected = -1;
        input.removeAttribute("aria-activedescendant");
        var count = result.refs.length;
        summary.textContent = count === 0 ? "No matching facts"
          : count === 1 ? "1 matching fact" : count + " matching facts";
        if (count > SHOWN) {
          var more = el("li", "md-search-result__item");
          more.setAttribute("role", "presentation");
          var all = el("a", "md-search-result__link memsite-more", "All " + count + " results");
          all.href = new URL("search/?query=" + encodeURIComponent(query), root).href;
          all.id = "memsite-hit-more";
          all.setAttribute("role", "option");
          more.appendChild(all);
          list.appendChild(more);
        }
        form.setAttribute("data-shown", String(mine));
        form.setAttribute("data-query", query);
      });
    }

    var run = typingPause(function () {
      var query = input.value.trim(), mine = ++generation;
      if (!query) {
        while (list.firstChild) list.removeChild(list.firstChild);
        summary.textContent = "Type to search the memory";
        return;
      }
      var newest = engine.newest(lane);
      newest.search(query).then(function (result) {
        return show(result, query, mine, newest);
      }).catch(function (error) {
        if (error instanceof Superseded) return;
        summary.textContent = "The search index could not be loaded (" + error.message + ").";
      });
    }, input);

    input.addEventListener("focus", open);
    input.addEventListener("input", function () {
      open();
      run();
    });
    input.addEventListener("keydown", function (ev) {
      if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
        ev.preventDefault();
        select(selected + (ev.key === "ArrowDown" ? 1 : -1));
      } else if (ev.key === "Enter") {
        ev.preventDefault();
        var typed = input.value.trim();
        if (selected < 0 && typed && form.getAttribute("data-query") !== typed) {
          /* The list shown is of an earlier query (the pause has not ended): all results of
             this one, on the search page. */
          run.cancel();
          close();
          window.location.href = new URL("search/?query=" + encodeURIComponent(typed), root).href;
          return;
        }
        var all = links();
        var target = all[selected >= 0 ? selected : 0];
        if (target) {
          close();
          target.click();
        }
      } else if (ev.key === "Escape") {
        close();
        input.blur();
      }
    });
    form.addEventListener("submit", function (ev) { ev.preventDefault(); });
    form.addEventListener("reset", function () {
      setTimeout(function () { input.focus(); run(); }, 0);
    });
    list.addEventListener("click", function () { close(); });
    document.addEventListener("keydown", function (ev) {
      if (ev.defaultPrevented || ev.ctrlKey || ev.metaKey || ev.altKey) return;
      var target = ev.target;
      if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
      if ((ev.key === "/" || ev.key === "s" || ev.key === "f") && shortcutsOn()) {
        ev.preventDefault();
        open();
        input.focus();
        input.select();
      }
    });
    if (toggle) {
      toggle.addEventListener("change", function () {
        if (toggle.checked) {
          engine = engine || engineFor(root);
          if (document.activeElement !== input) input.focus();
        } else {
          input.setAttribute("aria-expanded", "false");
        }
      });
    }
  }

  /* ---- the search page (templates/search.html) ---- */

  var PAGE = 20;

  function mountPage() {
    var form = document.getElementById("memsite-search");
    if (!form || form.getAttribute("data-ready") === "yes") return;
    form.setAttribute("data-ready", "yes");
    /* The page holds a note for readers without JavaScript (templates/search.html). */
    var fallback = document.getElementById("memsite-search-static");
    if (fallback) fallback.hidden = true;
    document.getElementById("memsite-search-live").hidden = false;
    var root = rootOf(form), engine = engineFor(root);
    var input = document.getElementById("memsite-q");
    var selects = {
      category: document.getElementById("memsite-category"),
      tag: document.getElementById("memsite-tag"),
      status: document.getElementById("memsite-status")
    };
    var summary = document.getElementById("memsite-summary");
    var list = document.getElementById("memsite-results");
    var moreButton = document.getElementById("memsite-more");
    var params = new URLSearchParams(window.location.search);
    if (params.has("query")) input.value = params.get("query");
    Object.keys(selects).forEach(function (name) {
      if (params.has(name)) selects[name].value = params.get(name);
    });
    var generation = 0, current = null, lane = {};

    function filters(meta) {
      var category = meta.categories.indexOf(selects.category.value);
      var tag = meta.tags.indexOf(selects.tag.value);
      var status = selects.status.value ? meta.statuses.indexOf(selects.status.value) : null;
      return {
        category: category >= 0 ? category : null,
        tag: tag >= 0 ? tag : null,
        status: status !== null && status >= 0 ? status : null
      };
    }

    function append(meta, count) {
      var state = current, refs = state.refs.slice(state.shown, state.shown + count);
      return engine.rows(refs).then(function (rows) {
        if (state !== current) return;
        rows.forEach(function (row) {
          var item = el("li", "memsite-result");
          var link = el("a", "memsite-result__title");
          link.href = entryHref(root, row, state.matched);
          var snippet = heading(link, row, state.matched, 240);
          item.appendChild(link);
          item.appendChild(document.createTextNode(" "));
          var status = meta.statuses[row[5]];
          item.appendChild(el("span", "memsite-status memsite-status--" + status, status));
          if (snippet) item.appendChild(snippet);
          var line = el("div", "memsite-muted");
          line.appendChild(el("span", "", row[6] + " · " + meta.categoryTitles[row[3]]));
          if (row[7]) line.appendChild(el("span", "", " · key " + row[7]));
          row[4].forEach(function (t) { line.appendChild(el("span", "", " #" + meta.tags[t])); });
          line.appendChild(el("span", "memsite-id", " · " + row[0].slice(0, 8)));
          item.appendChild(line);
          list.appendChild(item);
        });
        state.shown += refs.length;
        var total = state.refs.length;
        summary.textContent = total + (total === 1 ? " fact" : " facts") +
          (state.shown < total ? " (showing " + state.shown + ")" : "");
        moreButton.hidden = state.shown >= total;
        form.setAttribute("data-shown", String(state.generation));
        form.setAttribute("data-query", state.query);
        form.setAttribute("data-loaded", "yes");
      });
    }

    function remember() {
      var next = new URLSearchParams();
      if (input.value.trim()) next.set("query", input.value.trim());
      Object.keys(selects).forEach(function (name) {
        if (selects[name].value !== (name === "status" ? "active" : "")) {
          next.set(name, selects[name].value);
        }
      });
      var search = next.toString();
      window.history.replaceState(window.history.state, "", search ? "?" + search : window.location.pathname);
    }

    function run() {
      var query = input.value.trim(), mine = ++generation, newest = engine.newest(lane);
      engine.meta.then(function (meta) {
        var f = filters(meta);
        if (!query) {
          var browsing = f.category !== null || f.tag !== null;
          if (!browsing && (f.status === null || selects.status.value === "active")) {
            current = null;
            while (list.firstChild) list.removeChild(list.firstChild);
            moreButton.hidden = true;
            summary.textContent = "Type words to search " + meta.documents + " facts, or pick a category or tag.";
            form.setAttribute("data-loaded", "yes");
            remember();
            return null;
          }
          return engine.allowed({ category: f.category, tag: f.tag, browseStatus: f.status })
            .then(function (allowed) {
              var refs = Array.from(allowed).sort(function (a, b) { return b - a; });
              return { refs: refs, matched: new Set() };
            });
        }
        return newest.search(query, f);
      }).then(function (result) {
        if (!result || mine !== generation) return;
        while (list.firstChild) list.removeChild(list.firstChild);
        current = { refs: result.refs, matched: result.matched, shown: 0, query: query, generation: mine };
        return engine.meta.then(function (meta) { return append(meta, PAGE); }).then(function () {
          if (mine === generation) remember();
        });
      }).catch(function (error) {
        if (error instanceof Superseded) return;
        summary.textContent = "The search index could not be loaded (" + error.message + ").";
      });
    }

    var typing = typingPause(run, input);
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      typing.cancel();
      run();
    });
    input.addEventListener("input", typing);
    Object.keys(selects).forEach(function (name) { selects[name].addEventListener("change", run); });
    moreButton.addEventListener("click", function () {
      if (current) engine.meta.then(function (meta) { append(meta, PAGE); });
    });
    run();
  }

  /* Copy buttons ship hidden (a button that does nothing without Material's clipboard
   * script, as under TechDocs' reader, is better not shown). */
  function mountCopy() {
    var buttons = document.querySelectorAll("button.memsite-copy[hidden]");
    for (var n = 0; n < buttons.length; n++) buttons[n].hidden = false;
  }

  function mount() {
    mountCopy();
    mountHeader();
    mountPage();
    mountShortcuts();
    mountHighlight();
  }

  /* The skip link (overrides/main.html) moves the focus to the content itself. Left to the
   * browser, Material's instant navigation would take the same-page link too, re-render the
   * content and leave the focus wherever that put it (the next Tab could land in the
   * navigation). Listening in the capture phase runs before Material's own listener, once
   * for the page's whole life (this file runs once; instant navigation keeps the header). */
  document.addEventListener("click", function (ev) {
    var link = ev.target && ev.target.closest ? ev.target.closest("a.md-skip") : null;
    var target = link && link.hash ? document.getElementById(link.hash.slice(1)) : null;
    if (!target) return;
    ev.preventDefault();
    ev.stopImmediatePropagation();
    target.focus();
  }, true);

  window.memsiteSearch = {
    mount: mount,
    engine: engineFor,
    analysis: { normalize: normalize, wordTokens: wordTokens, stem: stem, terms: terms },
    withinDistance: withinDistance
  };
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(mount);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", mount);
  } else {
    mount();
  }
})();
