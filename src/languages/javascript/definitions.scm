; JavaScript definitions for the auto-fix code index.
; Captures: @class / @function / @method (the definition node), @name, @bases, @attribute, @value
; (the function bound to a name, to tell whether it is async).

(class_declaration
  name: (identifier) @name
  (class_heritage)? @bases) @class

; const Foo = class extends Bar {}
(variable_declarator
  name: (identifier) @name
  value: (class (class_heritage)? @bases)) @class

; static Inner = class extends Base {} in a class body: a nested class
(class_body
  (field_definition
    property: (property_identifier) @name
    value: (class (class_heritage)? @bases)) @class)

(class_body
  (method_definition
    name: [(property_identifier) (private_property_identifier) (computed_property_name)] @name) @method)

; handler = () => {} / handler = function () {} in a class body
(class_body
  (field_definition
    property: [(property_identifier) (private_property_identifier)] @name
    value: [(arrow_function) (function_expression) (generator_function)] @value) @method)

(class_body
  (field_definition) @attribute)

(function_declaration
  name: (identifier) @name) @function

(generator_function_declaration
  name: (identifier) @name) @function

; const f = async () => {} / let g = function () {}
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)] @value) @function

; Top-level exports.f = function () {} / Foo.prototype.bar = () => {}
(program
  (expression_statement
    (assignment_expression
      left: (member_expression property: (property_identifier) @name)
      right: [(arrow_function) (function_expression) (generator_function)] @value)) @function)

; Definitions made at run time where the name is a literal; the object they are made on is captured as
; @owner (it becomes the class: `req` in `req.__defineGetter__('host', …)`).
; obj.__defineGetter__('host', function () {}) / obj.__defineSetter__('host', (v) => {})
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

; Object.defineProperty(obj, 'name', { get() {}, set: function (v) {} })
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

; Object.defineProperties(obj, { name: { get() {} }, 'other': { value: function () {} } })
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
