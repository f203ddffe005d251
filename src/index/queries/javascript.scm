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
