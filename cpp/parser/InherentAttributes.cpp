//===- InherentAttributes.cpp - Attributes of the wrong kind --------------===//

#include "parser/InherentAttributes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"

using namespace mlir;

LogicalResult spine::checkInherentAttributeKinds(Operation *root) {
  // Ops are created with every default-valued property set, so one that is
  // null after parsing was given an attribute of the wrong kind.
  LogicalResult result = success();
  root->walk([&](Operation *op) {
    if (!op->getPropertiesStorageSize())
      return;
    Attribute before = op->getPropertiesAsAttribute();
    op->getName().populateDefaultProperties(op->getPropertiesStorage());
    Attribute after = op->getPropertiesAsAttribute();
    auto set = dyn_cast_or_null<DictionaryAttr>(before);
    auto all = dyn_cast_or_null<DictionaryAttr>(after);
    if (!all || before == after)
      return;
    for (NamedAttribute property : all)
      if (!set || !set.contains(property.getName()))
        op->emitOpError("attribute '") << property.getName().getValue()
                                       << "' is not of the kind the op takes";
    result = failure();
  });
  return result;
}
