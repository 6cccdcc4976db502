//===- ParserGuards.cpp - Inputs MLIR 22's parser mishandles --------------===//

#include "parser/ParserGuards.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <unordered_map>
#include <vector>

using namespace spine;

namespace {

/// A use that MLIR's parser would resolve to a definition that cannot
/// dominate it: the name and the offset of the use in the text.
struct UnsafeForwardReference {
  std::string name;
  size_t useOffset = 0;
};

bool isDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)); }

bool isIdChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
         c == '.' || c == '-';
}

/// Forward references: one pass over the text. Regions are brace-delimited
/// scopes (attribute dictionaries are scopes too, but hold no values); a
/// definition is visible in its scope and the scopes inside it, as the parser
/// has it.
class Scanner {
public:
  explicit Scanner(std::string_view text) : text(text) {
    parents.push_back(-1);
    namesPerScope.emplace_back();
    scopeStack.push_back(0);
  }

  std::optional<UnsafeForwardReference> run() {
    bool lineStart = true;
    while (pos < text.size() && !found) {
      char c = text[pos];
      if (c == '\n') {
        lineStart = true;
        ++pos;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r') {
        ++pos;
        continue;
      }
      if (c == '/' && peek(1) == '/') {
        while (pos < text.size() && text[pos] != '\n')
          ++pos;
        continue;
      }
      bool atStatement = lineStart;
      lineStart = false;
      if (c == '"') {
        skipString();
      } else if (atStatement && c == '%' && parseResults()) {
        // `%a, %b:2 = ...`: the op's results.
      } else if (atStatement && c == '^') {
        parseBlockHeader();
      } else if (atStatement && c == '(' && parseRegionArguments()) {
        // `(%in: i32, %init: i32) {` on a line of its own: the arguments of
        // the region that follows (linalg.reduce, linalg.map).
      } else if (c == '{') {
        parents.push_back(current());
        namesPerScope.emplace_back();
        scopeStack.push_back(static_cast<int>(parents.size()) - 1);
        for (const std::string &name : pendingRegionArguments)
          define(name, /*regionArgument=*/true);
        pendingRegionArguments.clear();
        ++pos;
      } else if (c == '}') {
        closeScope();
        ++pos;
      } else if (c == '(') {
        ++parenDepth;
        ++pos;
      } else if (c == ')') {
        if (!signatureParens.empty() && signatureParens.back() == parenDepth)
          signatureParens.pop_back();
        --parenDepth;
        ++pos;
      } else if (c == '@') {
        parseSymbol();
      } else if (c == '%') {
        parseValue();
      } else {
        ++pos;
      }
    }
    return found;
  }

private:
  struct Use {
    int scope;
    size_t offset;
  };

  std::string_view text;
  size_t pos = 0;
  int parenDepth = 0;
  /// The parent of every scope; scope 0 is the top level.
  std::vector<int> parents;
  std::vector<int> scopeStack;
  /// The names defined in each scope, forgotten when it closes.
  std::vector<std::vector<std::string>> namesPerScope;
  /// The scopes of the visible definitions of each name.
  std::unordered_map<std::string, std::vector<int>> definitions;
  /// Uses of names not visible where they occur, until a definition.
  std::unordered_map<std::string, std::vector<Use>> forwardReferences;
  /// Paren depths of the argument lists of `@symbol(...)`.
  std::vector<int> signatureParens;
  /// Arguments listed before a region, defined when its `{` opens.
  std::vector<std::string> pendingRegionArguments;
  std::optional<UnsafeForwardReference> found;

  char peek(size_t ahead) const {
    return pos + ahead < text.size() ? text[pos + ahead] : '\0';
  }
  int current() const { return scopeStack.back(); }

  bool encloses(int outer, int inner) const {
    for (int scope = inner; scope >= 0; scope = parents[scope])
      if (scope == outer)
        return true;
    return false;
  }

  void use(const std::string &name, size_t offset) {
    auto it = definitions.find(name);
    if (it != definitions.end() &&
        std::any_of(it->second.begin(), it->second.end(),
                    [&](int scope) { return encloses(scope, current()); }))
      return;
    forwardReferences[name].push_back({current(), offset});
  }

  /// A definition in the current scope. The parser resolves every pending
  /// forward reference of the name to it: unsafe unless the current scope
  /// encloses the use. A region or function argument (`regionArgument`)
  /// belongs to a region that comes after any earlier use, so it never
  /// validly resolves one.
  void define(const std::string &name, bool regionArgument) {
    auto it = forwardReferences.find(name);
    if (it != forwardReferences.end()) {
      for (const Use &u : it->second)
        if (!found && (regionArgument || !encloses(current(), u.scope)))
          found = UnsafeForwardReference{name, u.offset};
      forwardReferences.erase(it);
    }
    definitions[name].push_back(current());
    namesPerScope[current()].push_back(name);
  }

  void closeScope() {
    if (scopeStack.size() == 1)
      return; // unbalanced: the parser reports it
    int scope = current();
    for (const std::string &name : namesPerScope[scope]) {
      std::vector<int> &scopes = definitions[name];
      auto last = std::find(scopes.rbegin(), scopes.rend(), scope);
      if (last != scopes.rend())
        scopes.erase(std::next(last).base());
    }
    namesPerScope[scope].clear();
    scopeStack.pop_back();
  }

  void skipString() {
    ++pos;
    while (pos < text.size() && text[pos] != '"' && text[pos] != '\n')
      pos += text[pos] == '\\' ? 2 : 1;
    ++pos;
  }

  /// `%name` or `%name#N` at pos: the name, with pos after it.
  std::string parseName() {
    size_t start = pos++;
    while (pos < text.size() && isIdChar(text[pos]))
      ++pos;
    std::string name(text.substr(start, pos - start));
    if (peek(0) == '#')
      for (++pos; pos < text.size() && isDigit(text[pos]);)
        ++pos;
    return name;
  }

  void skipBlanks() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t'))
      ++pos;
  }

  /// `%a, %b:2 =` at the start of a statement: defines the results.
  bool parseResults() {
    size_t start = pos;
    std::vector<std::string> names;
    while (peek(0) == '%') {
      names.push_back(parseName());
      if (peek(0) == ':')
        for (++pos; pos < text.size() && isDigit(text[pos]);)
          ++pos;
      skipBlanks();
      if (peek(0) != ',')
        break;
      ++pos;
      skipBlanks();
    }
    if (peek(0) != '=' || peek(1) == '=') {
      pos = start;
      return false;
    }
    ++pos;
    for (const std::string &name : names)
      define(name, /*regionArgument=*/false);
    return true;
  }

  /// `^label(%a: type loc(...), ...):` at the start of a statement.
  void parseBlockHeader() {
    for (++pos; pos < text.size() && isIdChar(text[pos]);)
      ++pos;
    skipBlanks();
    if (peek(0) != '(')
      return;
    int depth = 0;
    do {
      char c = text[pos];
      if (c == '"') {
        skipString();
        continue;
      }
      if (c == '(')
        ++depth;
      else if (c == ')')
        --depth;
      if (c == '%' && depth == 1) {
        size_t offset = pos;
        std::string name = parseName();
        skipBlanks();
        if (peek(0) == ':')
          define(name, /*regionArgument=*/false);
        else
          use(name, offset);
        continue;
      }
      ++pos;
    } while (pos < text.size() && depth > 0 && text[pos - 1] != '\n');
  }

  /// `(%a: type loc(...), %b: type) {` at the start of a line: the argument
  /// list custom printers put before a region (linalg.reduce and linalg.map
  /// print it on a line of its own). The names followed by `:` become
  /// arguments of the region; false, with pos unchanged, if the parenthesis
  /// does not close on this line followed by `{`.
  bool parseRegionArguments() {
    size_t close = pos;
    for (int depth = 0; close < text.size() && text[close] != '\n'; ++close) {
      if (text[close] == '"') {
        for (++close;
             close < text.size() && text[close] != '"' && text[close] != '\n';)
          close += text[close] == '\\' ? 2 : 1;
        if (close >= text.size() || text[close] == '\n')
          return false;
      } else if (text[close] == '(') {
        ++depth;
      } else if (text[close] == ')' && --depth == 0) {
        break;
      }
    }
    if (close >= text.size() || text[close] != ')')
      return false;
    size_t next = close + 1;
    while (next < text.size() && (text[next] == ' ' || text[next] == '\t'))
      ++next;
    if (next >= text.size() || text[next] != '{')
      return false;
    for (++pos; pos < close;) {
      char c = text[pos];
      if (c == '"') {
        skipString();
      } else if (c == '%') {
        size_t offset = pos;
        std::string name = parseName();
        skipBlanks();
        if (peek(0) == ':')
          pendingRegionArguments.push_back(name);
        else if (name.size() > 1)
          use(name, offset);
      } else {
        ++pos;
      }
    }
    pos = close + 1;
    return true;
  }

  void parseSymbol() {
    ++pos;
    if (peek(0) == '"')
      skipString();
    else
      while (pos < text.size() && isIdChar(text[pos]))
        ++pos;
    if (peek(0) == '(')
      signatureParens.push_back(parenDepth + 1);
  }

  /// A value in the middle of a statement: a region argument (`%iv = `,
  /// `iter_args(%acc = %init)`), a function argument (`@f(%a: i32)`), or a
  /// use.
  void parseValue() {
    size_t offset = pos;
    std::string name = parseName();
    if (name.size() == 1)
      return;
    skipBlanks();
    bool inSignature =
        !signatureParens.empty() && signatureParens.back() == parenDepth;
    if ((peek(0) == '=' && peek(1) != '=') || (inSignature && peek(0) == ':'))
      define(name, /*regionArgument=*/true);
    else
      use(name, offset);
  }
};

/// Whether the magnitude `digits` (decimal, or hexadecimal after 0x) with
/// the given sign fits in an int64_t.
bool fitsInt64(std::string_view digits, bool negative) {
  bool hex = digits.size() > 2 && digits[0] == '0' &&
             (digits[1] == 'x' || digits[1] == 'X');
  unsigned __int128 value = 0;
  for (char c : hex ? digits.substr(2) : digits) {
    unsigned digit =
        std::isdigit(static_cast<unsigned char>(c))
            ? c - '0'
            : (std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
    value = value * (hex ? 16 : 10) + digit;
    if (value > (static_cast<unsigned __int128>(1) << 64))
      return false;
  }
  unsigned __int128 limit =
      (static_cast<unsigned __int128>(1) << 63) - (negative ? 0 : 1);
  return value <= limit;
}

/// `[` 64-bit integers separated by commas `]` at `pos`: the offset of the
/// first thing that is not, if any.
std::optional<size_t> badI64List(std::string_view text, size_t pos) {
  auto skipBlanks = [&] {
    while (pos < text.size() &&
           std::isspace(static_cast<unsigned char>(text[pos])))
      ++pos;
  };
  skipBlanks();
  if (pos >= text.size() || text[pos] != '[')
    return pos;
  ++pos;
  skipBlanks();
  if (pos < text.size() && text[pos] == ']')
    return std::nullopt;
  while (true) {
    size_t start = pos;
    bool negative = pos < text.size() && text[pos] == '-';
    if (negative)
      ++pos;
    size_t digits = pos;
    bool hex = pos + 1 < text.size() && text[pos] == '0' &&
               (text[pos + 1] == 'x' || text[pos + 1] == 'X');
    if (hex)
      pos += 2;
    while (pos < text.size() &&
           (hex ? std::isxdigit(static_cast<unsigned char>(text[pos]))
                : std::isdigit(static_cast<unsigned char>(text[pos]))))
      ++pos;
    if (pos == digits + (hex ? 2 : 0) ||
        (pos < text.size() && isIdChar(text[pos]) && text[pos] != '-') ||
        !fitsInt64(text.substr(digits, pos - digits), negative))
      return start;
    skipBlanks();
    if (pos < text.size() && text[pos] == ']')
      return std::nullopt;
    if (pos >= text.size() || text[pos] != ',')
      return pos;
    ++pos;
    skipBlanks();
  }
}

/// The integer list of each linalg.reduce / linalg.broadcast (`dimensions`)
/// and linalg.transpose (`permutation`) in custom form, up to the next
/// statement.
std::optional<ParserHazard> findBadLinalgDimensions(std::string_view text) {
  static constexpr std::string_view ops[] = {
      "linalg.reduce", "linalg.broadcast", "linalg.transpose"};
  for (std::string_view op : ops) {
    std::string_view keyword =
        op == "linalg.transpose" ? "permutation" : "dimensions";
    for (size_t at = text.find(op); at != std::string_view::npos;
         at = text.find(op, at + 1)) {
      size_t end = at + op.size();
      if ((at > 0 && (isIdChar(text[at - 1]) || text[at - 1] == '"')) ||
          (end < text.size() && isIdChar(text[end])))
        continue; // another name, or the generic form "linalg.reduce"(...)
      // The keyword, before a line that starts another statement or block.
      size_t pos = end;
      bool lineStart = false, found = false;
      while (pos < text.size() && !found) {
        char c = text[pos];
        if (c == '\n') {
          lineStart = true;
        } else if (c == '"') {
          for (++pos;
               pos < text.size() && text[pos] != '"' && text[pos] != '\n';)
            pos += text[pos] == '\\' ? 2 : 1;
          lineStart = false;
        } else if (!std::isspace(static_cast<unsigned char>(c))) {
          if (lineStart && (c == '%' || c == '^' || c == '}'))
            break;
          lineStart = false;
          if (text.substr(pos, keyword.size()) == keyword &&
              !isIdChar(text[pos - 1]) &&
              (pos + keyword.size() >= text.size() ||
               !isIdChar(text[pos + keyword.size()]))) {
            size_t eq = pos + keyword.size();
            while (eq < text.size() && (text[eq] == ' ' || text[eq] == '\t'))
              ++eq;
            if (eq < text.size() && text[eq] == '=') {
              if (std::optional<size_t> bad = badI64List(text, eq + 1))
                return ParserHazard{*bad,
                                    "expected a list of 64-bit integers for '" +
                                        std::string(keyword) + "' of '" +
                                        std::string(op) + "'"};
              found = true;
            }
          }
        }
        ++pos;
      }
    }
  }
  return std::nullopt;
}

/// A dense array of `index` elements (`array<index: 1, 0>`): the parser
/// takes the bit width of the element type, which index has none of, and
/// crashes.
std::optional<ParserHazard> findIndexDenseArray(std::string_view code) {
  constexpr std::string_view array = "array<";
  for (size_t at = code.find(array); at != std::string_view::npos;
       at = code.find(array, at + 1)) {
    if (at > 0 && isIdChar(code[at - 1]))
      continue;
    size_t pos = at + array.size();
    while (pos < code.size() &&
           std::isspace(static_cast<unsigned char>(code[pos])))
      ++pos;
    constexpr std::string_view index = "index";
    if (code.substr(pos, index.size()) == index &&
        (pos + index.size() >= code.size() ||
         !isIdChar(code[pos + index.size()])))
      return ParserHazard{pos, "dense arrays of 'index' are not supported: "
                               "use a fixed-width integer type"};
  }
  return std::nullopt;
}

/// The position list of each llvm.insertvalue / llvm.extractvalue in custom
/// form (`%agg[4, 0]`): the parser truncates positions to 32 bits before it
/// checks them against the aggregate type, and one of 2^32 or more crashes
/// it. No aggregate has that many elements.
std::optional<ParserHazard> findBadValuePositions(std::string_view code) {
  static constexpr std::string_view ops[] = {"llvm.insertvalue",
                                             "llvm.extractvalue"};
  for (std::string_view op : ops) {
    for (size_t at = code.find(op); at != std::string_view::npos;
         at = code.find(op, at + 1)) {
      size_t pos = at + op.size();
      if ((at > 0 && isIdChar(code[at - 1])) ||
          (pos < code.size() && isIdChar(code[pos])))
        continue;
      while (pos < code.size() && code[pos] != '[' && code[pos] != ':' &&
             code[pos] != '\n')
        ++pos;
      if (pos >= code.size() || code[pos] != '[')
        continue;
      for (++pos; pos < code.size() && code[pos] != ']'; ++pos) {
        if (!isDigit(code[pos]))
          continue;
        size_t start = pos;
        uint64_t value = 0;
        while (pos < code.size() && isDigit(code[pos])) {
          value = value * 10 + (code[pos] - '0');
          if (value >= (uint64_t(1) << 32))
            return ParserHazard{start, "position out of range in '" +
                                           std::string(op) + "'"};
          ++pos;
        }
        --pos;
      }
    }
  }
  return std::nullopt;
}

/// `text` with the contents of comments and string literals blanked out
/// (newlines and offsets stay): no op name or keyword is found in them.
std::string codeOnly(std::string_view text) {
  std::string code(text);
  for (size_t pos = 0; pos < code.size(); ++pos) {
    if (code[pos] == '/' && pos + 1 < code.size() && code[pos + 1] == '/') {
      for (; pos < code.size() && code[pos] != '\n'; ++pos)
        code[pos] = ' ';
    } else if (code[pos] == '"') {
      for (++pos; pos < code.size() && code[pos] != '"' && code[pos] != '\n';
           ++pos) {
        bool escape = code[pos] == '\\' && pos + 1 < code.size();
        code[pos] = ' ';
        if (escape)
          code[++pos] = ' ';
      }
    }
  }
  return code;
}

} // namespace

std::optional<ParserHazard> spine::findParserHazard(std::string_view text) {
  std::string code = codeOnly(text);
  if (std::optional<ParserHazard> bad = findIndexDenseArray(code))
    return bad;
  if (std::optional<ParserHazard> bad = findBadLinalgDimensions(code))
    return bad;
  if (std::optional<ParserHazard> bad = findBadValuePositions(code))
    return bad;
  if (std::optional<UnsafeForwardReference> unsafe = Scanner(text).run())
    return ParserHazard{unsafe->useOffset,
                        "use of value '" + unsafe->name +
                            "' before its definition, which is in a region "
                            "that does not enclose the use"};
  return std::nullopt;
}
