// Compiled by tests/CMakeLists.txt's core.family_slots_required.* (never linked): a family's
// names and opener are required by the compiler. FAMILY_CASE picks what is compiled: `complete`
// must compile; `unnamed` (no constructor arguments), `null_opener` (a null where the opener goes)
// and `wrong_opener` (an image opener given as a text one) must each fail with their message.
#include "models/model_family.h"

using namespace saccade;

namespace {

Result<std::shared_ptr<AttentionModel>> openImages(const std::string&, const std::string&) { return Error{"none"}; }

}  // namespace

ModelFamily family() {
#if FAMILY_CASE == 0  // complete
    return ModelFamily({"a", "A", "an a", "A family."}, FamilyOpeners::images(openImages));
#elif FAMILY_CASE == 1  // unnamed
    ModelFamily f;
    return f;
#elif FAMILY_CASE == 2  // null_opener
    return ModelFamily({"a", "A", "an a", "A family."}, FamilyOpeners::images(nullptr));
#else  // wrong_opener
    return ModelFamily({"a", "A", "an a", "A family."}, FamilyOpeners::text(openImages, "elsewhere"));
#endif
}
