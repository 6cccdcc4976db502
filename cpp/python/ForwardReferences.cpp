//===- ForwardReferences.cpp - Guard for MLIR's forward references --------===//

#include "python/ForwardReferences.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <vector>

using namespace spine;

namespace {

bool isDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)); }

bool isIdChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
         c == '.' || c == '-';
}

/// One pass over the text. Regions are brace-delimited scopes (attribute
/// dictionaries are scopes too, but hold no values); a definition is visible
/// in its scope and the scopes inside it, as the parser has it.
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
      } else if (c == '{') {
        parents.push_back(current());
        namesPerScope.emplace_back();
        scopeStack.push_back(static_cast<int>(parents.size()) - 1);
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

} // namespace

std::optional<UnsafeForwardReference>
spine::findUnsafeForwardReference(std::string_view text) {
  return Scanner(text).run();
}
