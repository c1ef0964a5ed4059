#include "crawl/injector.h"

#include "crawl/url_list.h"
#include "webdb/table/record.h"

namespace crawl {

Status Injector::AddUrl(std::string url) {
  if (options_.filter != nullptr && !options_.filter->Accepts(url)) {
    ++stats_.filtered;
    return Status::OK();
  }
  ++stats_.urls;
  return sink_.AddPageIfNotPresent(webdb::Page::WithDefaults(std::move(url)));
}

Status Injector::AddFile(nutchfs::Env& env, const std::string& path) {
  UrlListOptions list{options_.skip_bad, &stats_.bad};
  return ReadUrlList(env, path, list, [this](std::string url) { return AddUrl(std::move(url)); });
}

}  // namespace crawl
