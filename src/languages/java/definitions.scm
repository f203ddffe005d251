; Java definitions for the auto-fix code index.
; Captures: @class / @method (the definition node), @name, @bases, @attribute.

(class_declaration
  name: (identifier) @name
  superclass: (superclass)? @bases
  interfaces: (super_interfaces)? @bases) @class

(interface_declaration
  name: (identifier) @name
  (extends_interfaces)? @bases) @class

(enum_declaration
  name: (identifier) @name
  interfaces: (super_interfaces)? @bases) @class

(record_declaration
  name: (identifier) @name
  interfaces: (super_interfaces)? @bases) @class

(annotation_type_declaration
  name: (identifier) @name) @class

(method_declaration
  name: (identifier) @name) @method

(constructor_declaration
  name: (identifier) @name) @method

(compact_constructor_declaration
  name: (identifier) @name) @method

(class_body (field_declaration) @attribute)
(interface_body (constant_declaration) @attribute)
(enum_body (enum_constant) @attribute)
