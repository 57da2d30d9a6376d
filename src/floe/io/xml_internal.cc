#include "floe/io/xml_internal.h"

#include <utility>

namespace floe::io::internal {

std::vector<std::string> XmlValues(std::string_view xml, std::string_view tag) {
  std::vector<std::string> out;
  const std::string open = "<" + std::string(tag) + ">";
  const std::string close = "</" + std::string(tag) + ">";
  size_t at = 0;
  while ((at = xml.find(open, at)) != std::string_view::npos) {
    const size_t begin = at + open.size();
    const size_t end = xml.find(close, begin);
    if (end == std::string_view::npos) break;
    std::string value;
    for (size_t i = begin; i < end; ++i) {
      if (xml[i] != '&') {
        value.push_back(xml[i]);
        continue;
      }
      static const std::pair<std::string_view, char> kEntities[] = {
          {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
      bool decoded = false;
      for (const auto& [entity, c] : kEntities) {
        if (xml.substr(i, entity.size()) == entity) {
          value.push_back(c);
          i += entity.size() - 1;
          decoded = true;
          break;
        }
      }
      if (!decoded) value.push_back('&');
    }
    out.push_back(std::move(value));
    at = end + close.size();
  }
  return out;
}

std::string XmlValue(std::string_view xml, std::string_view tag) {
  std::vector<std::string> values = XmlValues(xml, tag);
  return values.empty() ? std::string() : values.front();
}

std::string XmlEscape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

}  // namespace floe::io::internal
