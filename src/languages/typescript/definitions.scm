; TypeScript (and TSX) definitions for the auto-fix code index.
; Captures: @class / @function / @method (the definition node), @name, @bases, @attribute, @value.

(class_declaration
  name: (type_identifier) @name
  (class_heritage)? @bases) @class

(abstract_class_declaration
  name: (type_identifier) @name
  (class_heritage)? @bases) @class

(interface_declaration
  name: (type_identifier) @name
  (extends_type_clause)? @bases) @class

(enum_declaration
  name: (identifier) @name) @class

; const Foo = class extends Bar {}
(variable_declarator
  name: (identifier) @name
  value: (class (class_heritage)? @bases)) @class

; static Inner = class extends Base {} in a class body: a nested class
(class_body
  (public_field_definition
    name: (property_identifier) @name
    value: (class (class_heritage)? @bases)) @class)

(class_body
  (method_definition
    name: [(property_identifier) (private_property_identifier) (computed_property_name)] @name) @method)

(class_body
  (abstract_method_signature
    name: [(property_identifier) (private_property_identifier) (computed_property_name)] @name) @method)

(interface_body
  (method_signature
    name: [(property_identifier) (computed_property_name)] @name) @method)

; handler = () => {} in a class body
(class_body
  (public_field_definition
    name: [(property_identifier) (private_property_identifier)] @name
    value: [(arrow_function) (function_expression) (generator_function)] @value) @method)

(class_body
  (public_field_definition) @attribute)

(interface_body
  (property_signature) @attribute)

(function_declaration
  name: (identifier) @name) @function

(generator_function_declaration
  name: (identifier) @name) @function

(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)] @value) @function

(program
  (expression_statement
    (assignment_expression
      left: (member_expression property: (property_identifier) @name)
      right: [(arrow_function) (function_expression) (generator_function)] @value)) @function)

; Definitions made at run time where the name is a literal (as in javascript.scm); the object they are
; made on is captured as @owner and becomes the class.
(expression_statement
  (call_expression
    function: (member_expression
      object: (_) @owner
      property: (property_identifier) @_define)
    arguments: (arguments
      .
      (string (string_fragment) @name)
      .
      [(arrow_function) (function_expression) (generator_function)] @value))
  (#match? @_define "^__define[GS]etter__$")) @function

(expression_statement
  (call_expression
    function: (member_expression
      object: (identifier) @_object
      property: (property_identifier) @_define)
    arguments: (arguments
      .
      (_) @owner
      .
      (string (string_fragment) @name)
      .
      (object)))
  (#match? @_object "^(Object|Reflect)$")
  (#eq? @_define "defineProperty")) @function

(call_expression
  function: (member_expression
    object: (identifier) @_object
    property: (property_identifier) @_define)
  arguments: (arguments
    .
    (_) @owner
    .
    (object
      (pair
        key: [(property_identifier) @name (string (string_fragment) @name)]
        value: (object)) @function))
  (#eq? @_object "Object")
  (#eq? @_define "defineProperties"))

; Methods of an object literal bound to a name, with that name as their class (`utils` in
; `const utils = { a() {}, b: function () {}, c: () => {} }`, `Foo` in `Foo.prototype = { … }`; none for
; `module.exports = { … }`, whose methods are the module's functions).
(variable_declarator
  name: (identifier) @owner
  value: (object
    (method_definition
      name: [(property_identifier) @name (string (string_fragment) @name)]) @function))

(variable_declarator
  name: (identifier) @owner
  value: (object
    (pair
      key: [(property_identifier) @name (string (string_fragment) @name)]
      value: [(arrow_function) (function_expression) (generator_function)] @value) @function))

(assignment_expression
  left: [(identifier) (member_expression)] @owner
  right: (object
    (method_definition
      name: [(property_identifier) @name (string (string_fragment) @name)]) @function))

(assignment_expression
  left: [(identifier) (member_expression)] @owner
  right: (object
    (pair
      key: [(property_identifier) @name (string (string_fragment) @name)]
      value: [(arrow_function) (function_expression) (generator_function)] @value) @function))

; exports.Parser = class {} / Foo.Bar = class extends Base {} at the top level: a class by assignment
(program
  (expression_statement
    (assignment_expression
      left: (member_expression property: (property_identifier) @name)
      right: (class (class_heritage)? @bases)) @class))
